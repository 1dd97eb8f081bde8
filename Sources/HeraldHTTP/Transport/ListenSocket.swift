#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket, bound by us so errors are precise and port 0 can be read back.
struct ListenSocket {
    let fd: Int32
    let port: Int
    let isIPv6: Bool

    static func open(host: String, port: Int, backlog: Int32 = 4096) throws(HTTPServerError) -> ListenSocket {
        guard (0...65535).contains(port) else {
            throw HTTPServerError(.invalidAddress, "Port \(port) is out of range.")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &results)
        guard lookup == 0, let resolved = results else {
            let reason = String(cString: gai_strerror(lookup))
            throw HTTPServerError(.invalidAddress, "Cannot resolve host \"\(host)\": \(reason).")
        }
        defer { freeaddrinfo(results) }

        // A name like "localhost" may resolve to both families: prefer IPv4.
        var chosen = resolved
        var candidate: UnsafeMutablePointer<addrinfo>? = resolved
        while let current = candidate {
            if current.pointee.ai_family == AF_INET {
                chosen = current
                break
            }
            candidate = current.pointee.ai_next
        }
        let first = chosen
        let family = first.pointee.ai_family
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            throw HTTPServerError(.socketFailed, "Cannot create a socket: \(Self.describe(errno)).", systemError: errno)
        }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            var off: Int32 = 0
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        if bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                throw HTTPServerError(
                    .addressInUse, "Cannot listen on \(host):\(port): the address is already in use.", systemError: code
                )
            }
            throw HTTPServerError(
                .socketFailed, "Cannot bind \(host):\(port): \(Self.describe(code)).", systemError: code)
        }
        if listen(fd, backlog) != 0 {
            let code = errno
            close(fd)
            throw HTTPServerError(
                .socketFailed, "Cannot listen on \(host):\(port): \(Self.describe(code)).", systemError: code)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let boundPort = withUnsafeMutablePointer(to: &storage) { pointer -> Int in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard getsockname(fd, address, &length) == 0 else { return port }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    Int(UInt16(bigEndian: inet.pointee.sin_port))  // same offset in sockaddr_in6
                }
            }
        }
        return ListenSocket(fd: fd, port: boundPort, isIPv6: family == AF_INET6)
    }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Raises the open-files soft limit to the hard limit (best effort) and returns the soft
    /// limit in force afterwards (1,024 if it cannot be read).
    static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }
}
