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

    /// The addresses `getaddrinfo` gives for `host` (a name, or an IP in any form the C library
    /// reads, `2130706433` and `0x7f.1` included) and `port`: it blocks, so call it off Swift's
    /// cooperative pool. A failure answers `getaddrinfo`'s code and text.
    package static func resolve(host: String, port: UInt16) -> Result<[SocketAddress], ResolveFailure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard result == 0 else {
            return .failure(ResolveFailure(code: result, message: String(cString: gai_strerror(result))))
        }
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                addresses.append(SocketAddress(address, length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }

    /// Why a host name could not be resolved: `getaddrinfo`'s code and its text for it.
    package struct ResolveFailure: Error, Sendable {
        package let code: Int32
        package let message: String
    }

    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6.
    package var ipBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr) ?? 8
                return Array(raw[offset..<offset + 16])
            }
            let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr) ?? 4
            return Array(raw[offset..<offset + 4])
        }
    }

    /// The address as text (`127.0.0.1`, `::1`), for messages.
    package var ipText: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var bytes = ipBytes
        guard inet_ntop(family, &bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
