import HeraldHTTP2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Errors of the loopback test client.
public enum LoopbackClientError: Error, CustomStringConvertible, Equatable {
    case connectFailed(errno: Int32)
    case timedOut
    case closed
    case malformedResponse(String)
    case system(String, Int32)

    public var description: String {
        switch self {
        case .connectFailed(let code): "connect failed: \(String(cString: strerror(code))) (errno \(code))"
        case .timedOut: "timed out waiting for the server"
        case .closed: "the connection was closed"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }

    /// True when the server refused the connection (nothing listening).
    public var isConnectionRefused: Bool {
        if case .connectFailed(let code) = self { return code == ECONNREFUSED }
        return false
    }
}

/// A non-blocking TCP socket whose waits go through the shared reactor.
final class LoopbackSocket: Sendable {
    let fd: Int32
    private let isShutDown = Atomic<Bool>(false)

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        SocketReactor.shared.forget(fd: fd)
        close(fd)
    }

    static func connect(host: String, port: Int, from source: String? = nil, deadline: ContinuousClock.Instant)
        async throws -> LoopbackSocket
    {
        var address = sockaddr_storage()
        var length: socklen_t
        var family: Int32
        let name = host == "localhost" ? "127.0.0.1" : host
        if name.contains(":") {
            family = AF_INET6
            var inet6 = sockaddr_in6()
            inet6.sin6_family = sa_family_t(AF_INET6)
            inet6.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, name, &inet6.sin6_addr) == 1 else {
                throw LoopbackClientError.connectFailed(errno: EINVAL)
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &address) { raw in raw.storeBytes(of: inet6, as: sockaddr_in6.self) }
        } else {
            family = AF_INET
            var inet = sockaddr_in()
            inet.sin_family = sa_family_t(AF_INET)
            inet.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, name, &inet.sin_addr) == 1 else {
                throw LoopbackClientError.connectFailed(errno: EINVAL)
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &address) { raw in raw.storeBytes(of: inet, as: sockaddr_in.self) }
        }
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackClientError.system("socket", errno) }
        let socket = LoopbackSocket(fd: fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard family == AF_INET, inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                throw LoopbackClientError.connectFailed(errno: EINVAL)
            }
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw LoopbackClientError.system("bind", errno) }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if result != 0 {
            guard errno == EINPROGRESS else { throw LoopbackClientError.connectFailed(errno: errno) }
            try await Self.wait(fd: fd, writable: true, deadline: deadline)
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else { throw LoopbackClientError.connectFailed(errno: error) }
        }
        return socket
    }

    func writeAll(_ bytes: [UInt8], deadline: ContinuousClock.Instant) async throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try await Self.wait(fd: fd, writable: true, deadline: deadline)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                throw LoopbackClientError.system("send", errno)
            }
        }
    }

    /// Up to `maximum` bytes; empty at end of stream (a reset counts as the end).
    func read(maximum: Int = 16 * 1024, deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        while true {
            var received: [UInt8] = []
            let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { scratch -> Int in
                let count = recv(fd, scratch.baseAddress, scratch.count, 0)
                if count > 0 { received = Array(scratch[0..<count]) }
                return count
            }
            if count > 0 {
                return received
            }
            if count == 0 { return [] }
            switch errno {
            case EAGAIN, EWOULDBLOCK:
                if isShutDown.load(ordering: .relaxed) { return [] }
                try await Self.wait(fd: fd, writable: false, deadline: deadline)
            case EINTR:
                continue
            case ECONNRESET:
                return []
            default:
                throw LoopbackClientError.system("recv", errno)
            }
        }
    }

    /// Waits on the process's one ``SocketReactor`` (shared with the server's webhook client), its
    /// failures as this client's errors.
    private static func wait(fd: Int32, writable: Bool, deadline: ContinuousClock.Instant) async throws {
        do {
            try await SocketReactor.shared.wait(fd: fd, writable: writable, deadline: deadline)
        } catch let error as SocketReactor.WaitError {
            switch error {
            case .timedOut: throw LoopbackClientError.timedOut
            case .closed: throw LoopbackClientError.closed
            case .system(let code): throw LoopbackClientError.system("epoll_ctl", code)
            }
        }
    }

    /// Sends FIN (the server sees the client leave); the descriptor closes on deinit.
    func shutdown() {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }
}
