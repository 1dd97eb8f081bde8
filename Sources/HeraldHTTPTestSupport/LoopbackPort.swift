import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP ports for tests: one that nothing listens on, or a socket bound to a free one.
public enum LoopbackPort {
    /// A loopback port nothing listens on (free when asked; another process may take it later).
    public static func unused() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return try bind(fd)
    }

    /// Binds `fd` to a free port of 127.0.0.1 and answers the port.
    public static func bind(_ fd: Int32) throws -> Int {
        var bound = address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let done = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard done else { throw LoopbackPortError(errno: errno) }
        return Int(UInt16(bigEndian: bound.sin_port))
    }

    /// 127.0.0.1 and `port`.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// No loopback port could be bound.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public let errno: Int32

    public init(errno: Int32) { self.errno = errno }

    public var description: String { "cannot bind a loopback port: errno \(errno)" }
}
