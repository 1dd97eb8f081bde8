import COpenSSL
import HeraldSocket

/// Owns one connection's `SSL*`: the server side of TLS over a non-blocking socket.
final class TLSStream {
    private let handle: OpaquePointer

    init(context: TLSContext, fd: Int32) throws(HTTP2ServerError) {
        handle = try LibraryCall.openSSLObject(SSL_new(context.handle), "SSL_new")
        try LibraryCall.openSSL(SSL_set_fd(handle, fd), "SSL_set_fd")
        SSL_set_accept_state(handle)
    }

    deinit { SSL_free(handle) }

    /// Whether the handshake (and with it ALPN `h2`) is done.
    var isEstablished: Bool { SSL_is_init_finished(handle) == 1 }

    /// Advances the handshake; `.transferred(0)` once it is done.
    func handshake() -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_do_handshake(handle)) { _ in .transferred(0) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_read(handle, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))) {
            .transferred(Int($0))
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_write(handle, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))) {
            .transferred(Int($0))
        }
    }

    /// Sends TLS `close_notify` (once; whatever the socket does not take is dropped).
    func closeNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(handle)
        ERR_clear_error()
    }

    /// Maps an OpenSSL I/O result (positive: success) to what the connection does next. Failures
    /// leave nothing in the thread's error queue, which other connections on the loop share.
    private func outcome(_ result: Int32, success: (Int32) -> SocketIO) -> SocketIO {
        if result > 0 { return success(result) }
        let error = SSL_get_error(handle, result)
        switch error {
        case SSL_ERROR_WANT_READ: return .wantsReadable
        case SSL_ERROR_WANT_WRITE: return .wantsWritable
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            ERR_clear_error()
            return .failed
        }
    }
}
