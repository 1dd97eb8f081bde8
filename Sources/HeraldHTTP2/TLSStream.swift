import COpenSSL

/// Owns one connection's `SSL*` over a non-blocking socket, client or server side: the
/// handshake, then reads and writes.
package final class TLSStream {
    private let handle: OpaquePointer
    private let counter: HandleCounter?

    /// How far a handshake step got.
    package enum Handshake {
        case done
        case wantsReadable
        case wantsWritable
        /// The peer's certificate failed verification with this X.509 code and text.
        case untrusted(code: Int, reason: String)
        /// Anything else: OpenSSL's error (code 0 when it queued none: the peer closed).
        case failed(NativeFailure)
    }

    /// The client side to `host`: SNI and host-name verification, or IP verification (no SNI)
    /// for an IP literal.
    package init<Failure: NativeCallError>(
        client context: TLSContext, fd: Int32, host: String, counter: HandleCounter, throwing: Failure.Type
    ) throws(Failure) {
        handle = try NativeCall<Failure>.openSSLObject(SSL_new(context.handle), "SSL_new")
        self.counter = counter
        counter.allocated()
        try NativeCall<Failure>.openSSL(SSL_set_fd(handle, fd), "SSL_set_fd")
        let parameters = SSL_get0_param(handle)
        if SocketAddress.isIPLiteral(host) {
            try NativeCall<Failure>.openSSL(
                X509_VERIFY_PARAM_set1_ip_asc(parameters, host), "X509_VERIFY_PARAM_set1_ip_asc")
        } else {
            try NativeCall<Failure>.openSSL(
                herald_SSL_set_tlsext_host_name(handle, host), "SSL_set_tlsext_host_name")
            try NativeCall<Failure>.openSSL(
                X509_VERIFY_PARAM_set1_host(parameters, host, 0), "X509_VERIFY_PARAM_set1_host")
        }
        SSL_set_connect_state(handle)
    }

    /// The server side of an accepted socket.
    package init<Failure: NativeCallError>(server context: TLSContext, fd: Int32, throwing: Failure.Type)
        throws(Failure)
    {
        handle = try NativeCall<Failure>.openSSLObject(SSL_new(context.handle), "SSL_new")
        counter = nil
        try NativeCall<Failure>.openSSL(SSL_set_fd(handle, fd), "SSL_set_fd")
        SSL_set_accept_state(handle)
    }

    deinit {
        SSL_free(handle)
        counter?.freed()
    }

    /// Whether the handshake is done.
    package var isEstablished: Bool { SSL_is_init_finished(handle) == 1 }

    /// Whether the peers agreed on `h2` by ALPN.
    package var choseHTTP2: Bool { negotiatedProtocol == "h2" }

    /// The protocol the peers agreed on by ALPN (`h2`, `http/1.1`), nil when none was.
    package var negotiatedProtocol: String? {
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(handle, &protocolName, &length)
        guard let protocolName, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: protocolName, count: Int(length)), as: UTF8.self)
    }

    /// Advances the handshake. A failure leaves nothing in the thread's error queue.
    package func handshake() -> Handshake {
        ERR_clear_error()
        let result = SSL_do_handshake(handle)
        if result == 1 { return .done }
        switch SSL_get_error(handle, result) {
        case SSL_ERROR_WANT_READ: return .wantsReadable
        case SSL_ERROR_WANT_WRITE: return .wantsWritable
        default:
            let verification = SSL_get_verify_result(handle)
            guard verification == Int(X509_V_OK) else {
                ERR_clear_error()
                return .untrusted(
                    code: verification, reason: String(cString: X509_verify_cert_error_string(verification)))
            }
            return .failed(.openSSL("SSL_do_handshake"))
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_read(handle, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max)))))
    }

    package func write(_ bytes: UnsafeRawBufferPointer) -> SocketIO {
        ERR_clear_error()
        return outcome(SSL_write(handle, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max)))))
    }

    /// Sends TLS `close_notify` (once; whatever the socket does not take is dropped).
    package func closeNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(handle)
        ERR_clear_error()
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
