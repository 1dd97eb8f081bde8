/// The connections of one origin and the requests waiting for a stream on one, confined to the
/// loop's thread.
///
/// A request goes to an open connection with a free stream slot (the lower of the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS and `maxConcurrentStreams`). A new connection is opened only
/// when the open and opening ones cannot take every waiting request and fewer than
/// `maxConnectionsPerHost` exist (libcurl's PIPEWAIT). A connection going away takes nothing new
/// and does not count.
final class OriginPool {
    let origin: Origin
    private unowned let loop: ClientLoop
    private(set) var connections: [ClientConnection] = []
    /// Waiting requests, oldest first, from `waitingStart` on; finished ones are skipped.
    private var waiting: [PendingRequest] = []
    private var waitingStart = 0
    /// Queued for ``dispatch()`` at the end of the loop's turn.
    var isDirty = false

    /// Streams a connection that is still being set up is expected to take (nghttp2's
    /// assumption until the server's SETTINGS arrive), so a burst does not open every connection.
    private static let assumedStreamLimit = 100

    init(origin: Origin, loop: ClientLoop) {
        self.origin = origin
        self.loop = loop
    }

    func enqueue(_ request: PendingRequest) {
        request.phase = .waiting
        waiting.append(request)
        markDirty()
    }

    func markDirty() {
        loop.markDirty(self)
    }

    /// Hands waiting requests to free stream slots, and opens a connection when they need one.
    func dispatch() {
        for connection in connections where waitingStart < waiting.count {
            var slots = connection.freeSlots
            while slots > 0, let request = nextWaiting() {
                connection.submit(request)
                slots -= 1
            }
        }
        var stillWaiting = 0
        for request in waiting[waitingStart...] where request.phase == .waiting { stillWaiting += 1 }
        compactWaiting()
        guard stillWaiting > 0 else { return }
        let perConnection = min(loop.configuration.maxConcurrentStreams, Self.assumedStreamLimit)
        var usable = 0
        var expected = 0
        for connection in connections where connection.isUsable {
            usable += 1
            if connection.awaitsServerLimit { expected += perConnection }
        }
        while stillWaiting > expected && usable < loop.configuration.maxConnectionsPerHost {
            connections.append(loop.openConnection(to: self))
            usable += 1
            expected += perConnection
        }
    }

    /// A connection of this pool closed.
    func connectionClosed(_ connection: ClientConnection) {
        connections.removeAll { $0 === connection }
        markDirty()
    }

    /// A connection failed before it was open: when no other connection of the origin is open or
    /// opening, the waiting requests fail with `error` (nothing was sent).
    func connectionFailed(_ connection: ClientConnection, _ error: HTTP2ClientError) {
        connections.removeAll { $0 === connection }
        guard !connections.contains(where: { $0.isUsable }) else { return }
        for request in waiting[waitingStart...] where request.phase == .waiting {
            loop.complete(request, .failure(error))
        }
        waiting.removeAll(keepingCapacity: true)
        waitingStart = 0
    }

    /// Fails every waiting request with `error` (the client is shutting down).
    func failWaiting(_ error: HTTP2ClientError) {
        for request in waiting[waitingStart...] where request.phase == .waiting {
            loop.complete(request, .failure(error))
        }
        waiting.removeAll()
        waitingStart = 0
    }

    private func nextWaiting() -> PendingRequest? {
        while waitingStart < waiting.count {
            let request = waiting[waitingStart]
            waitingStart += 1
            if request.phase == .waiting { return request }
        }
        return nil
    }

    /// Drops the taken front of `waiting` once it is all or most of the array.
    private func compactWaiting() {
        if waitingStart == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingStart = 0
        } else if waitingStart > 1024 && waitingStart * 2 > waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
    }
}
