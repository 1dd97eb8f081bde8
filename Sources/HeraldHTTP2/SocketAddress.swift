#if canImport(Glibc)
    import Glibc
#endif

/// One IPv4 or IPv6 address and port to connect to.
package struct SocketAddress: Sendable {
    private var storage = sockaddr_storage()
    private var length: socklen_t = 0

    package var family: Int32 { Int32(storage.ss_family) }

    /// The address of an IP literal (no lookup), or nil for a host name.
    package init?(literal host: String, port: UInt16) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            self.init(copying: &v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            self.init(copying: &v6)
            return
        }
        return nil
    }

    /// A copy of `address`, `length` bytes (from `getaddrinfo`).
    package init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
        self.length = length
    }

    private init<Address>(copying address: inout Address) {
        let size = socklen_t(MemoryLayout<Address>.size)
        self = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: size) }
        }
    }

    /// Whether `host` is an IPv4 or IPv6 literal (verified as an IP, sent without SNI).
    package static func isIPLiteral(_ host: String) -> Bool {
        SocketAddress(literal: host, port: 0) != nil
    }

    /// Starts a non-blocking connect from `fd`: 0 when connected at once, else `errno`
    /// (`EINPROGRESS`: wait until the socket is writable).
    package func connect(_ fd: Int32) -> Int32 {
        var copy = storage
        let result = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        return result == 0 ? 0 : errno
    }
}
