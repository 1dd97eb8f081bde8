import COpenSSL
import HeraldSocket

/// Owns one connection's client `SSL*` over a non-blocking socket: SNI and host-name (or IP)
/// verification set up front, then the handshake, reads and writes.
final class ClientTLSStream {
    private let handle: OpaquePointer
    private let counter: HandleCounter

    init(context: ClientTLSContext, fd: Int32, origin: Origin, counter: HandleCounter) throws(HTTP2ClientError) {
        handle = try NativeCall.openSSLObject(SSL_new(context.handle), "SSL_new")
        self.counter = counter
        counter.allocated()
        try NativeCall.openSSL(SSL_set_fd(handle, fd), "SSL_set_fd")
        let parameters = SSL_get0_param(handle)
        if SocketAddress.isIPLiteral(origin.host) {
            try NativeCall.openSSL(
                X509_VERIFY_PARAM_set1_ip_asc(parameters, origin.host), "X509_VERIFY_PARAM_set1_ip_asc")
        } else {
            try NativeCall.openSSL(
                herald_SSL_set_tlsext_host_name(handle, origin.host), "SSL_set_tlsext_host_name")
            try NativeCall.openSSL(
                X509_VERIFY_PARAM_set1_host(parameters, origin.host, 0), "X509_VERIFY_PARAM_set1_host")
        }
        SSL_set_connect_state(handle)
    }

    deinit {
        SSL_free(handle)
        counter.freed()
    }

    /// Advances the handshake: `.transferred(0)` once it is done and the server chose `h2`.
    /// Throws `.certificate` for an untrusted peer, `.other` when the server does not offer
    /// HTTP/2, `.tlsHandshake` for anything else.
    func handshake(origin: Origin) throws(HTTP2ClientError) -> SocketIO {
        ERR_clear_error()
        let result = SSL_do_handshake(handle)
        if result == 1 {
            var protocolName: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(handle, &protocolName, &length)
            guard let protocolName, length == 2, protocolName[0] == UInt8(ascii: "h"),
                protocolName[1] == UInt8(ascii: "2")
            else {
                throw HTTP2ClientError(
                    kind: .other, code: 0, library: "OpenSSL",
                    message: "\(origin.host) port \(origin.port) did not choose HTTP/2 (ALPN h2) in the TLS handshake")
            }
            return .transferred(0)
        }
        switch SSL_get_error(handle, result) {
        case SSL_ERROR_WANT_READ: return .wantsReadable
        case SSL_ERROR_WANT_WRITE: return .wantsWritable
        default:
            let verification = SSL_get_verify_result(handle)
            if verification != Int(X509_V_OK) {
                ERR_clear_error()
                throw HTTP2ClientError(
                    kind: .certificate, code: verification, library: "OpenSSL",
                    message: "SSL certificate problem: \(String(cString: X509_verify_cert_error_string(verification)))")
            }
            let error = NativeCall.openSSLError("SSL_do_handshake", kind: .tlsHandshake)
            guard error.code == 0 else { throw error }
            throw HTTP2ClientError(
                kind: .tlsHandshake, code: 0, library: "OpenSSL",
                message: "the TLS handshake with \(origin.host) port \(origin.port) broke off (connection closed)")
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_read(handle, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max)))))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_write(handle, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max)))))
    }

    /// Maps an OpenSSL I/O result (positive: bytes moved) to what the connection does next;
    /// failures leave nothing in the thread's error queue, which other connections share.
    private func outcome(_ result: Int32) -> SocketIO {
        if result > 0 { return .transferred(Int(result)) }
        switch SSL_get_error(handle, result) {
        case SSL_ERROR_WANT_READ: return .wantsReadable
        case SSL_ERROR_WANT_WRITE: return .wantsWritable
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            ERR_clear_error()
            return .failed
        }
    }
}
