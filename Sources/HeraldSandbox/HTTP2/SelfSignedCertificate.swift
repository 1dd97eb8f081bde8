import COpenSSL
import HeraldHTTP2

/// Makes a self-signed certificate for the loopback names, with OpenSSL.
enum SelfSignedCertificate {
    /// A new P-256 key and a certificate for it: PEM bytes of each.
    static func make() throws(HTTP2ServerError) -> (certificate: [UInt8], privateKey: [UInt8]) {
        let key = try NativeCall<HTTP2ServerError>.openSSLObject(herald_EVP_PKEY_generate_p256(), "EVP_PKEY_Q_keygen")
        defer { EVP_PKEY_free(key) }
        let certificate = try NativeCall<HTTP2ServerError>.openSSLObject(X509_new(), "X509_new")
        defer { X509_free(certificate) }

        try NativeCall<HTTP2ServerError>.openSSL(X509_set_version(certificate, Int(X509_VERSION_3)), "X509_set_version")
        var serial = [UInt8](repeating: 0, count: 8)
        try NativeCall<HTTP2ServerError>.openSSL(RAND_bytes(&serial, Int32(serial.count)), "RAND_bytes")
        let serialNumber = serial.reduce(0) { ($0 << 8) | Int($1) } & Int.max
        try NativeCall<HTTP2ServerError>.openSSL(
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), serialNumber), "ASN1_INTEGER_set")
        _ = try NativeCall<HTTP2ServerError>.openSSLObject(
            X509_gmtime_adj(X509_getm_notBefore(certificate), -3600), "X509_gmtime_adj")
        _ = try NativeCall<HTTP2ServerError>.openSSLObject(
            X509_gmtime_adj(X509_getm_notAfter(certificate), 10 * 365 * 86400), "X509_gmtime_adj")
        try NativeCall<HTTP2ServerError>.openSSL(X509_set_pubkey(certificate, key), "X509_set_pubkey")

        let name = X509_get_subject_name(certificate)
        let commonName = Array("Herald sandbox".utf8)
        try NativeCall<HTTP2ServerError>.openSSL(
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, Int32(commonName.count), -1, 0),
            "X509_NAME_add_entry_by_txt")
        try NativeCall<HTTP2ServerError>.openSSL(X509_set_issuer_name(certificate, name), "X509_set_issuer_name")

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_subject_key_identifier, "hash"),
            (NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"),
        ]
        for (nid, value) in extensions {
            let ext = try NativeCall<HTTP2ServerError>.openSSLObject(
                X509V3_EXT_conf_nid(nil, &context, nid, value), "X509V3_EXT_conf_nid")
            defer { X509_EXTENSION_free(ext) }
            try NativeCall<HTTP2ServerError>.openSSL(X509_add_ext(certificate, ext, -1), "X509_add_ext")
        }
        try NativeCall<HTTP2ServerError>.openSSL(X509_sign(certificate, key, EVP_sha256()) > 0 ? 1 : 0, "X509_sign")

        let certificatePEM = try pem("PEM_write_bio_X509") { PEM_write_bio_X509($0, certificate) }
        let keyPEM = try pem("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        return (certificatePEM, keyPEM)
    }

    /// The bytes `write` puts into a memory BIO.
    private static func pem(_ function: StaticString, _ write: (OpaquePointer) -> Int32) throws(HTTP2ServerError)
        -> [UInt8]
    {
        let bio = try NativeCall<HTTP2ServerError>.openSSLObject(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        try NativeCall<HTTP2ServerError>.openSSL(write(bio), function)
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = BIO_read(bio, &bytes, Int32(bytes.count))
        try NativeCall<HTTP2ServerError>.openSSL(read == Int32(bytes.count) ? 1 : 0, "BIO_read")
        return bytes
    }
}
