import CNGHTTP2
import HeraldHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// The one thread of an nghttp2 engine: it takes the mailbox's requests in batches, gives them
/// to their origins' connections, reads and writes every connection as epoll reports it, and
/// times requests and connection set-ups out, sleeping until the nearest deadline.
///
/// Each turn writes every connection touched once, so the frames of a batch of requests go out
/// in as few `SSL_write`s as the socket takes.
final class ClientLoop {
    let configuration: HTTP2ClientConfiguration
    let handles: HandleCounter
    private let mailbox: RequestMailbox
    private let events: EventLoop
    /// The TLS context; nil once the loop has stopped.
    private(set) var context: TLSContext?
    /// Why the context's certificate authorities could not be loaded: every TLS connection fails
    /// with it (`.certificate`, as libcurl reports a bad CA file per request).
    let trustError: HTTP2ClientError?
    /// Shared by every connection's reads.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var pools: [Origin: OriginPool] = [:]
    private var connections: [UInt64: ClientConnection] = [:]
    private var lastConnectionID: UInt64 = 0
    private var deadlines = DeadlineHeap()
    private var dirtyConnections: [ClientConnection] = []
    private var dirtyPools: [OriginPool] = []

    private init(configuration: HTTP2ClientConfiguration, mailbox: RequestMailbox) {
        self.configuration = configuration
        self.mailbox = mailbox
        events = mailbox.events
        handles = mailbox.handles
        context = mailbox.takeContext()
        trustError = context?.trustFailure.map { failure, caFile in
            guard let caFile else { return HTTP2ClientError(failure, kind: .certificate) }
            return HTTP2ClientError(
                kind: .certificate, code: failure.code, library: "OpenSSL",
                message: "cannot use the CA file \(caFile): \(failure.message)")
        }
    }

    deinit { readBuffer.deallocate() }

    /// Runs on the calling thread until the client closes, then fails what is left, frees every
    /// handle and tells the mailbox.
    static func run(configuration: HTTP2ClientConfiguration, mailbox: RequestMailbox) {
        ClientLoop(configuration: configuration, mailbox: mailbox).run()
        mailbox.finished()
    }

    private func run() {
        var ready = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.wait(into: &ready, timeout: nextTimeout())
            for index in 0..<count {
                let tag = ready[index].data.u64
                if tag == EventLoop.wakeTag {
                    guard takeMail() else { return stop() }
                } else {
                    connections[tag]?.handle(events: ready[index].events)
                }
            }
            expireDeadlines()
            endTurn()
        }
    }

    // MARK: Mail

    /// Takes what callers sent; false when the client is closing.
    private func takeMail() -> Bool {
        let mail = mailbox.take()
        guard !mail.closing else {
            for request in mail.queued { request.resume(.failure(HTTP2ClientError.shutDown)) }
            return false
        }
        for request in mail.queued {
            if request.cancelRequested {
                request.resume(.failure(CancellationError()))
                continue
            }
            deadlines.insert(request)
            pool(for: request.origin).enqueue(request)
        }
        for request in mail.cancelled { cancel(request) }
        for resolution in mail.resolved {
            connections[resolution.connectionID]?.addressesResolved(resolution.result)
        }
        return true
    }

    private func cancel(_ request: PendingRequest) {
        switch request.phase {
        case .new: request.cancelRequested = true
        case .waiting: complete(request, .failure(CancellationError()))
        case .streaming:
            request.connection?.cancel(request)
            complete(request, .failure(CancellationError()))
        case .finished: break
        }
    }

    private func pool(for origin: Origin) -> OriginPool {
        if let pool = pools[origin] { return pool }
        let pool = OriginPool(origin: origin, loop: self)
        pools[origin] = pool
        return pool
    }

    // MARK: For connections and pools

    /// Resumes `request`'s caller and stops timing it.
    func complete(_ request: PendingRequest, _ outcome: Result<ReceivedResponse, any Error>) {
        deadlines.remove(request)
        request.resume(outcome)
    }

    /// Opens a connection for `pool`, looking its host up off this thread unless it is an IP literal.
    func openConnection(to pool: OriginPool) -> ClientConnection {
        lastConnectionID += 1
        let connection = ClientConnection(id: lastConnectionID, origin: pool.origin, loop: self, pool: pool)
        connections[connection.id] = connection
        if let literal = SocketAddress(literal: pool.origin.host, port: pool.origin.port) {
            connection.addressesResolved(.success([literal]))
        } else {
            let mailbox = self.mailbox
            let id = connection.id
            AddressResolver.lookUp(pool.origin) { mailbox.resolved((id, $0)) }
        }
        return connection
    }

    func connectionOpened() {
        mailbox.connectionsOpened.add(1, ordering: .relaxed)
    }

    /// A connection has closed: it gets no more events.
    func forget(_ connection: ClientConnection) {
        connections[connection.id] = nil
    }

    func markDirty(_ connection: ClientConnection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirtyConnections.append(connection)
    }

    func markDirty(_ pool: OriginPool) {
        guard !pool.isDirty else { return }
        pool.isDirty = true
        dirtyPools.append(pool)
    }

    /// Connections are tagged with their ids (from 1; 0 is the wake-up's).
    func watch(_ connection: ClientConnection, writable: Bool, adding: Bool) {
        events.watch(connection.fd, tag: connection.id, writable: writable, adding: adding)
    }

    func unwatch(_ connection: ClientConnection) {
        events.unwatch(connection.fd)
    }

    // MARK: Turns and time

    /// Gives waiting requests their streams, then writes every connection that has frames due.
    private func endTurn() {
        while !dirtyPools.isEmpty || !dirtyConnections.isEmpty {
            let pools = dirtyPools
            dirtyPools.removeAll(keepingCapacity: true)
            for pool in pools {
                pool.isDirty = false
                pool.dispatch()
            }
            let connections = dirtyConnections
            dirtyConnections.removeAll(keepingCapacity: true)
            for connection in connections {
                connection.isDirty = false
                connection.flush()
            }
        }
    }

    /// Milliseconds until the nearest request or set-up deadline (-1: none).
    private func nextTimeout() -> Int32 {
        var nearest = deadlines.first?.deadline
        for connection in connections.values where connection.state != .open {
            nearest = min(nearest ?? connection.setupDeadline, connection.setupDeadline)
        }
        guard let nearest else { return -1 }
        let (seconds, attoseconds) = (nearest - .now).components
        guard seconds >= 0 else { return 0 }
        // Rounded up, so a wake-up never comes before the deadline.
        return Int32(
            min(Int64(Int32.max), seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    private func expireDeadlines() {
        let now = ContinuousClock.now
        while let request = deadlines.first, request.deadline <= now {
            if request.phase == .streaming { request.connection?.cancel(request) }
            let milliseconds =
                request.timeout.components.seconds * 1000
                + request.timeout.components.attoseconds / 1_000_000_000_000_000
            complete(
                request,
                .failure(
                    HTTP2ClientError(
                        kind: .timedOut, code: 0, library: "Herald",
                        message: "Operation timed out after \(milliseconds) milliseconds")))
        }
        for connection in connections.values where connection.state != .open && connection.setupDeadline <= now {
            let milliseconds = configuration.connectTimeout.components.seconds * 1000
            connection.failSetup(
                HTTP2ClientError(
                    kind: .timedOut, code: 0, library: "Herald",
                    message: "Connection to \(connection.origin.host) port \(connection.origin.port) timed out "
                        + "after \(milliseconds) milliseconds"))
        }
    }

    /// Fails everything with `.closed`, frees every connection and the context.
    private func stop() {
        let closed = HTTP2ClientError.shutDown
        for connection in Array(connections.values) { connection.lose(closed) }
        for pool in pools.values { pool.failWaiting(closed) }
        for request in mailbox.stopped() { request.resume(.failure(closed)) }
        pools.removeAll()
        connections.removeAll()
        dirtyConnections.removeAll()
        dirtyPools.removeAll()
        context = nil
    }
}
