import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection from accept to close: its socket, its address, and which deadline it is
/// under. Created in libmicrohttpd's connection-started notification (kept as the connection's
/// socket context) and marked closed in the closed notification, before the library closes the
/// socket: only then may another thread act on the descriptor, under the lock.
final class PeerConnection: Sendable {
    enum Phase: Sendable {
        /// Waiting for a whole request head: new, or kept alive after a request.
        case head
        /// Receiving a request body.
        case body
        /// The responder runs or its response is being sent (the request timeout applies).
        case handling
        /// Cut off by the sweeper, or closed by the library.
        case closed
    }

    struct State: Sendable {
        var phase = Phase.head
        var deadline: ContinuousClock.Instant?
        /// Requests served on this connection so far.
        var requests = 0
        /// The request target of the latest request line, and when that line was read: what
        /// the access log shows for an answer libmicrohttpd gave itself.
        var target: String?
        var requestLineAt: ContinuousClock.Instant?
        /// Its socket left the library to carry an event stream (``StreamSockets``).
        var detached = false
    }

    let fd: Int32
    /// The client's address without the port ("127.0.0.1", "::1"); "-" when unknown.
    let address: String
    let state = Mutex(State())

    init(fd: Int32, address: String) {
        self.fd = fd
        self.address = address
    }

    /// Enters `phase`; its deadline is `timeout` from now (none for a zero timeout).
    func enter(_ phase: Phase, timeout: Duration) -> ContinuousClock.Instant? {
        state.withLock { state in
            guard state.phase != .closed else { return nil }
            if state.phase == .head && phase != .head { state.requests += 1 }
            state.phase = phase
            state.deadline = timeout > .zero ? .now + timeout : nil
            return state.deadline
        }
    }

    /// If the connection is still in the phase whose deadline passed, cuts it off: `farewell`
    /// (a 408 for a request that was still arriving) is written if the client is owed one, and
    /// the socket is shut down, so the library sees it end and frees the connection. Returns
    /// the phase it was cut off in.
    func expire(farewell: [UInt8]) -> Phase? {
        state.withLock { state -> Phase? in
            guard let deadline = state.deadline, deadline <= .now else { return nil }
            let phase = state.phase
            switch phase {
            case .head, .body:
                // A kept-alive connection that sent nothing of its next request just goes.
                if phase == .body || state.requests == 0 {
                    farewell.withUnsafeBytes { bytes in
                        _ = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                    }
                }
                _ = shutdown(fd, Int32(SHUT_RDWR))
                state.phase = .closed
                state.deadline = nil
                return phase
            case .handling, .closed:
                return nil
            }
        }
    }

    /// The library has read a request line with this target.
    func requestLineRead(target: String) {
        state.withLock { state in
            state.target = target
            state.requestLineAt = .now
        }
    }

    /// The connection's request ended; the next one has no request line yet.
    func requestEnded() {
        state.withLock { $0.target = nil }
    }

    /// No request line has been read since the connection opened or its last request ended.
    var awaitsRequestLine: Bool {
        state.withLock { $0.target == nil }
    }

    /// Its socket leaves the library for ``StreamSockets``; false if it had already.
    func detach() -> Bool {
        state.withLock { state in
            defer { state.detached = true }
            return !state.detached
        }
    }

    /// Whether its socket left the library for ``StreamSockets``.
    var isDetached: Bool { state.withLock { $0.detached } }

    /// The library closed the connection (its socket is closed right after).
    func closed() {
        state.withLock { state in
            state.phase = .closed
            state.deadline = nil
        }
    }

    /// The readable form of a socket address, without the port.
    static func describe(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "-" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                guard inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "-" }
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                var raw = inet.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "-" }
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        default:
            return "-"
        }
    }
}
