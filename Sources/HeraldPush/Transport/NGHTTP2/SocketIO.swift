#if canImport(Glibc)
    import Glibc
#endif

/// The outcome of one non-blocking read or write on a connection.
enum SocketIO: Equatable {
    /// This many bytes moved.
    case transferred(Int)
    /// Try again once the socket is readable.
    case wantsReadable
    /// Try again once the socket is writable.
    case wantsWritable
    /// The peer closed its side.
    case closed
    /// The connection is broken.
    case failed

    /// Reads what the kernel has for `fd`.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantsReadable : .failed
    }

    /// Writes as much of `bytes` as the kernel takes (no SIGPIPE).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> SocketIO {
        let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .transferred(count) }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantsWritable : .failed
    }
}
