import COpenSSL

/// Owns one `SSL_CTX*`, TLS 1.2 or later with HTTP/2 by ALPN: a client's (offering `h2`, or
/// `http/1.1` for the webhook client, verifying peers against the system's certificate
/// authorities or a CA file) or a server's
/// (its certificate and key, answering `h2`, else `http/1.1`).
// Safe: not changed after init; OpenSSL locks what `SSL_new` shares.
package final class TLSContext: @unchecked Sendable {
    package let handle: OpaquePointer
    /// A client's: why its certificate authorities could not be loaded (every TLS connection
    /// then fails with it), and the CA file it named.
    package let trustFailure: (failure: NativeFailure, caFile: String?)?
    private let counter: HandleCounter?

    /// A client context trusting `caFile` instead of the system's authorities when set, offering
    /// `protocols` by ALPN (`h2` for the push client, `http/1.1` for the webhook client).
    package init<Failure: NativeCallError>(
        clientTrusting caFile: String?, offering protocols: [String] = ["h2"], counter: HandleCounter,
        throwing: Failure.Type
    )
        throws(Failure)
    {
        handle = try NativeCall<Failure>.openSSLObject(SSL_CTX_new(TLS_client_method()), "SSL_CTX_new")
        self.counter = counter
        counter.allocated()
        try Self.configure(handle, throwing: Failure.self)
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        // Wire format: each name after its length byte.
        let alpn = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        // The one OpenSSL call that answers 0 for success.
        guard SSL_CTX_set_alpn_protos(handle, alpn, UInt32(alpn.count)) == 0 else {
            throw Failure(.openSSL("SSL_CTX_set_alpn_protos"))
        }
        if let caFile {
            trustFailure =
                SSL_CTX_load_verify_locations(handle, caFile, nil) == 1
                ? nil : (.openSSL("SSL_CTX_load_verify_locations"), caFile)
        } else {
            trustFailure =
                SSL_CTX_set_default_verify_paths(handle) == 1
                ? nil : (.openSSL("SSL_CTX_set_default_verify_paths"), nil)
        }
    }

    /// A server context presenting the certificate chain and private key in these PEM files,
    /// selecting `h2` by ALPN when the client offers it and `selectsH2` is true, else `http/1.1`
    /// when offered, else no protocol (the client then speaks HTTP/1.1, as one without ALPN does).
    package init<Failure: NativeCallError>(
        serverCertificate certificatePath: String, privateKey privateKeyPath: String, selectsH2: Bool = true,
        throwing: Failure.Type
    ) throws(Failure) {
        handle = try NativeCall<Failure>.openSSLObject(SSL_CTX_new(TLS_server_method()), "SSL_CTX_new")
        counter = nil
        trustFailure = nil
        try Self.configure(handle, throwing: Failure.self)
        try NativeCall<Failure>.openSSL(
            SSL_CTX_use_certificate_chain_file(handle, certificatePath), "SSL_CTX_use_certificate_chain_file")
        try NativeCall<Failure>.openSSL(
            SSL_CTX_use_PrivateKey_file(handle, privateKeyPath, SSL_FILETYPE_PEM), "SSL_CTX_use_PrivateKey_file")
        try NativeCall<Failure>.openSSL(SSL_CTX_check_private_key(handle), "SSL_CTX_check_private_key")
        herald_SSL_CTX_select_alpn(handle, selectsH2 ? 0 : 1)
    }

    deinit {
        SSL_CTX_free(handle)
        counter?.freed()
    }

    /// TLS 1.2 or later; writes may be partial and retried from a moved buffer.
    private static func configure<Failure: NativeCallError>(_ handle: OpaquePointer, throwing: Failure.Type)
        throws(Failure)
    {
        try NativeCall<Failure>.openSSL(
            herald_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION), "SSL_CTX_set_min_proto_version")
        _ = herald_SSL_CTX_set_partial_write_modes(handle)
    }
}
