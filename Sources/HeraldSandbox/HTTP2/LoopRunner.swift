import CNGHTTP2
import HeraldHTTP2
import HeraldLog

#if canImport(Glibc)
    import Glibc
#endif

/// The state one event-loop thread owns (its connections, for the first loop also the listening
/// socket) and the loop itself: wait on epoll, pump connections, run queued jobs.
final class LoopRunner {
    private let loop: ServerLoop
    private let server: ServerContext
    private var listenFD: Int32?
    private var connections: [UInt64: HTTP2Connection] = [:]
    /// Connections whose epoll registration includes EPOLLOUT.
    private var watchingWritable: Set<UInt64> = []
    /// Connections closed gracefully on our side, waiting for the client to close.
    private var lingering: Set<UInt64> = []
    private var stopDeadline: ContinuousClock.Instant?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    init(loop: ServerLoop, server: ServerContext, listenFD: Int32?) {
        self.loop = loop
        self.server = server
        self.listenFD = listenFD
        if let listenFD { loop.events.watch(listenFD, tag: LoopEvent.listener, writable: false, adding: true) }
    }

    deinit { buffer.deallocate() }

    /// Runs until a stop has drained every connection (or its grace ran out), then closes all.
    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout: Int32 = stopDeadline != nil ? 20 : lingering.isEmpty ? -1 : 100
            let count = loop.events.wait(into: &events, timeout: timeout)
            for index in 0..<count {
                switch events[index].data.u64 {
                case LoopEvent.wake: for job in loop.takeJobs() { job(self) }
                case LoopEvent.listener: acceptConnections()
                case let id:
                    guard let connection = connections[id] else { continue }
                    connection.pump(buffer: buffer)
                    settle(connection)
                }
            }
            expireLingering()
            if let stopDeadline, connections.isEmpty || .now >= stopDeadline { break }
        }
        for connection in connections.values { close(connection) }
        closeListener()
        loop.finish()
    }

    // MARK: Jobs from other threads

    /// Takes over an accepted socket.
    func adopt(_ fd: Int32) {
        guard stopDeadline == nil else {
            Glibc.close(fd)
            return
        }
        let id = server.makeConnectionID()
        let connection: HTTP2Connection
        do {
            connection = try HTTP2Connection(id: id, io: ConnectionIO(fd: fd), server: server, loop: loop)
        } catch {
            server.configuration.logger.warning(
                "sandbox: an accepted connection could not be set up", metadata: ["error": "\(error)"])
            return
        }
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        connections[id] = connection
        server.connectionsOpen.add(1, ordering: .relaxed)
        loop.events.watch(fd, tag: id, writable: false, adding: true)
        connection.flush()
        settle(connection)
    }

    func respond(connectionID: UInt64, streamID: Int32, _ response: HTTP2Response) {
        guard let connection = connections[connectionID] else {
            response.whenUnanswered?()
            return
        }
        connection.respond(streamID: streamID, with: response)
        settle(connection)
    }

    func goAway(_ code: HTTP2ErrorCode) {
        for connection in connections.values {
            connection.goAway(code)
            settle(connection)
        }
    }

    func dropConnections() {
        for connection in connections.values {
            connection.resetOnClose()
            settle(connection)
        }
    }

    /// Stops accepting, sends GOAWAY everywhere and lets the loop end once connections are done.
    func beginStop(deadline: ContinuousClock.Instant) {
        stopDeadline = deadline
        closeListener()
        goAway(.noError)
    }

    /// Stops accepting and resets every connection at once (no GOAWAY): the loop ends now.
    func abort() {
        stopDeadline = .now
        closeListener()
        dropConnections()
    }

    // MARK: Internals

    private func acceptConnections() {
        guard let listenFD else { return }
        while true {
            let fd = accept4(listenFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            guard fd >= 0 else { return }
            server.connectionsAccepted.add(1, ordering: .relaxed)
            let target = server.nextLoopForConnection()
            if target === loop {
                adopt(fd)
            } else if !target.execute({ $0.adopt(fd) }) {
                Glibc.close(fd)
            }
        }
    }

    /// Closes a finished connection, or matches its epoll interest to what it waits for.
    private func settle(_ connection: HTTP2Connection) {
        if connection.isFinished {
            close(connection)
            return
        }
        if connection.lingersUntil != nil { lingering.insert(connection.id) }
        let watching = watchingWritable.contains(connection.id)
        guard connection.waitsForWritable != watching else { return }
        if connection.waitsForWritable {
            watchingWritable.insert(connection.id)
        } else {
            watchingWritable.remove(connection.id)
        }
        loop.events.watch(connection.fd, tag: connection.id, writable: connection.waitsForWritable, adding: false)
    }

    /// Closes the lingering connections whose clients did not close in time.
    private func expireLingering() {
        guard !lingering.isEmpty else { return }
        let now = ContinuousClock.now
        for id in lingering {
            guard let connection = connections[id] else {
                lingering.remove(id)
                continue
            }
            connection.lingerExpired(at: now)
            settle(connection)
        }
    }

    private func close(_ connection: HTTP2Connection) {
        loop.events.unwatch(connection.fd)
        watchingWritable.remove(connection.id)
        lingering.remove(connection.id)
        if connections.removeValue(forKey: connection.id) != nil {
            server.connectionsOpen.subtract(1, ordering: .relaxed)
        }
    }

    private func closeListener() {
        guard let fd = listenFD else { return }
        loop.events.unwatch(fd)
        Glibc.close(fd)
        listenFD = nil
    }
}
