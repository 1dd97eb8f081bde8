import HeraldHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// Binds and listens on an IPv4 address (port 0: any free port, read back).
enum ListeningSocket {
    /// The non-blocking listening descriptor and its bound port.
    static func open(host: String, port: Int) throws(HTTP2ServerError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &results)
        guard lookup == 0, let address = results else {
            throw HTTP2ServerError(.system, "Cannot resolve \(host): \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(results) }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = try NativeCall<HTTP2ServerError>.system(socket(AF_INET, type, 0), "socket")
        do {
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            try NativeCall<HTTP2ServerError>.system(
                bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen), "bind")
            try NativeCall<HTTP2ServerError>.system(listen(fd, 4096), "listen")
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = try withUnsafeMutablePointer(to: &bound) { pointer throws(HTTP2ServerError) in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(HTTP2ServerError) in
                    try NativeCall<HTTP2ServerError>.system(getsockname(fd, address, &length), "getsockname")
                }
            }
            return (fd, Int(UInt16(bigEndian: bound.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }
}
