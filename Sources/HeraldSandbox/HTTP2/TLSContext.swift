import COpenSSL

/// Owns the server's `SSL_CTX*`: its certificate and key, TLS 1.2 or later, ALPN answering `h2`.
final class TLSContext: @unchecked Sendable {  // Not changed after init; OpenSSL locks what SSL_new shares.
    let handle: OpaquePointer

    init(identity: TLSIdentity) throws(HTTP2ServerError) {
        handle = try LibraryCall.openSSLObject(SSL_CTX_new(TLS_server_method()), "SSL_CTX_new")
        try LibraryCall.openSSL(
            herald_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION), "SSL_CTX_set_min_proto_version")
        try LibraryCall.openSSL(
            SSL_CTX_use_certificate_chain_file(handle, identity.certificatePath), "SSL_CTX_use_certificate_chain_file")
        try LibraryCall.openSSL(
            SSL_CTX_use_PrivateKey_file(handle, identity.privateKeyPath, SSL_FILETYPE_PEM),
            "SSL_CTX_use_PrivateKey_file")
        try LibraryCall.openSSL(SSL_CTX_check_private_key(handle), "SSL_CTX_check_private_key")
        _ = herald_SSL_CTX_set_partial_write_modes(handle)
        herald_SSL_CTX_select_alpn_h2(handle)
    }

    deinit { SSL_CTX_free(handle) }
}
