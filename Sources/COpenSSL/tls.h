#ifndef HERALD_COPENSSL_TLS_H
#define HERALD_COPENSSL_TLS_H
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/// `SSL_CTX_set_min_proto_version` is a macro over `SSL_CTX_ctrl`.
static inline int herald_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

/// `SSL_CTX_set_mode` is a macro: partial writes, and a retried write may come from a moved buffer.
static inline long herald_SSL_CTX_set_partial_write_modes(SSL_CTX *context) {
    return SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// `SSL_set_tlsext_host_name` is a macro over `SSL_ctrl`: the name a client sends as SNI.
static inline int herald_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// `EVP_EC_gen` is a macro over the variadic `EVP_PKEY_Q_keygen`: a new P-256 key, or NULL.
static inline EVP_PKEY *herald_EVP_PKEY_generate_p256(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

/// The ALPN selection callback's shape has `const unsigned char **` where `SSL_select_next_proto`
/// wants `unsigned char **`; the cast is done here. A server's choice from the client's list:
/// "h2" when offered (unless `arg` is non-NULL: a server that refuses h2), else "http/1.1" when
/// offered; with neither, no protocol is agreed and the connection speaks HTTP/1.1 as a client
/// without ALPN does (RFC 7301 §3.2 lets a server ignore protocols it does not support).
static inline int herald_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                     const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char h2[] = {2, 'h', '2'};
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    (void)ssl;
    if (arg == NULL
        && SSL_select_next_proto((unsigned char **)out, outlen, h2, sizeof h2, in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_OK;
    }
    if (SSL_select_next_proto((unsigned char **)out, outlen, http11, sizeof http11, in, inlen)
        == OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

/// Makes a server context answer ALPN with "h2", else "http/1.1"; with `refuseH2`, "http/1.1" only.
static inline void herald_SSL_CTX_select_alpn(SSL_CTX *context, int refuseH2) {
    static int refusing = 1;
    SSL_CTX_set_alpn_select_cb(context, herald_alpn_select, refuseH2 ? &refusing : NULL);
}
#endif
