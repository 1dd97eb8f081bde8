#if canImport(Glibc)
    import Glibc
#endif

/// The outcome of one non-blocking read or write on a connection: the HTTP/2 client's and the
/// sandbox server's sockets.
package enum SocketIO: Equatable, Sendable {
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
    package static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .transferred(count) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantsReadable : .failed
    }

    /// The first byte waiting on `fd`, left in place: `.transferred(byte)`, or why there is none.
    package static func peekFirstByte(_ fd: Int32) -> (SocketIO, UInt8) {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK))
        if count > 0 { return (.transferred(1), byte) }
        if count == 0 { return (.closed, 0) }
        return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantsReadable : .failed, 0)
    }

    /// Writes as much of `bytes` as the kernel takes (no SIGPIPE).
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> SocketIO {
        let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return .transferred(count) }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantsWritable : .failed
    }
}
