import COpenSSL

/// Owns the engine's client `SSL_CTX*`: TLS 1.2 or later, ALPN offering `h2`, peers verified
/// against the system's certificate authorities or `caFile`.
///
/// `@unchecked Sendable`: not changed after init; OpenSSL locks what `SSL_new` shares.
final class ClientTLSContext: @unchecked Sendable {
    let handle: OpaquePointer
    /// Why the CA file could not be used: every TLS connection fails with it (`.certificate`,
    /// as libcurl reports a bad CA file per request).
    let trustError: HTTP2ClientError?
    private let counter: HandleCounter

    init(caFile: String?, counter: HandleCounter) throws(HTTP2ClientError) {
        handle = try NativeCall.openSSLObject(SSL_CTX_new(TLS_client_method()), "SSL_CTX_new")
        self.counter = counter
        counter.allocated()
        try NativeCall.openSSL(
            herald_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION), "SSL_CTX_set_min_proto_version")
        _ = herald_SSL_CTX_set_partial_write_modes(handle)
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        let h2: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        // The one OpenSSL call that answers 0 for success.
        guard SSL_CTX_set_alpn_protos(handle, h2, UInt32(h2.count)) == 0 else {
            throw NativeCall.openSSLError("SSL_CTX_set_alpn_protos")
        }
        if let caFile {
            if SSL_CTX_load_verify_locations(handle, caFile, nil) == 1 {
                trustError = nil
            } else {
                let failure = NativeCall.openSSLError("SSL_CTX_load_verify_locations")
                trustError = HTTP2ClientError(
                    kind: .certificate, code: failure.code, library: "OpenSSL",
                    message: "cannot use the CA file \(caFile): \(failure.message)")
            }
        } else {
            trustError =
                SSL_CTX_set_default_verify_paths(handle) == 1
                ? nil : NativeCall.openSSLError("SSL_CTX_set_default_verify_paths", kind: .certificate)
        }
    }

    deinit {
        SSL_CTX_free(handle)
        counter.freed()
    }
}
