import COpenSSL

/// An EC P-256 or RSA key, private or public, for ES256 and RS256 signatures.
///
/// Loaded from PEM (a PKCS#8 `.p8` private key as APNs issues it, a PKCS#8 RSA key as in a
/// Google service-account JSON, or a SubjectPublicKeyInfo public key) or generated.
// @unchecked: the EVP_PKEY is never mutated after init; OpenSSL 3 allows concurrent use of a const key.
public final class SigningKey: @unchecked Sendable {
    /// The kind of key, which fixes the one JWT algorithm it is used with.
    public enum Kind: Sendable, Equatable {
        /// An EC key on P-256 (prime256v1): ES256.
        case p256
        /// An RSA key of at least 2,048 bits: RS256.
        case rsa(bits: Int)
    }

    /// The smallest RSA modulus accepted, in bits.
    public static let minimumRSABits = 2_048

    let pointer: OpaquePointer
    /// P-256 or RSA.
    public let kind: Kind
    /// Whether this key can sign (otherwise it only verifies).
    public let isPrivate: Bool

    /// The JWT algorithm this key signs and verifies: ES256 or RS256.
    public var algorithm: JWTAlgorithm {
        switch kind {
        case .p256: .es256
        case .rsa: .rs256
        }
    }

    /// Takes ownership of `pointer`; frees it and throws ``CryptoError/invalidKey`` when it
    /// is neither P-256 nor RSA of at least ``minimumRSABits``.
    private init(taking pointer: OpaquePointer, isPrivate: Bool) throws {
        self.pointer = pointer
        self.isPrivate = isPrivate
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1,
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
            else {
                EVP_PKEY_free(pointer)
                ERR_clear_error()
                throw CryptoError(.invalidKey, "EC key is not on P-256")
            }
            kind = .p256
        case EVP_PKEY_RSA:
            let bits = Int(EVP_PKEY_get_bits(pointer))
            guard bits >= Self.minimumRSABits else {
                EVP_PKEY_free(pointer)
                throw CryptoError(.invalidKey, "RSA key of \(bits) bits is shorter than \(Self.minimumRSABits)")
            }
            kind = .rsa(bits: bits)
        default:
            EVP_PKEY_free(pointer)
            throw CryptoError(.invalidKey, "key is neither EC P-256 nor RSA")
        }
    }

    deinit { EVP_PKEY_free(pointer) }

    /// A private key from PEM: PKCS#8 (`BEGIN PRIVATE KEY`, as in an APNs `.p8` file or a
    /// service-account `private_key`), or the traditional `BEGIN EC/RSA PRIVATE KEY` forms.
    /// An encrypted key is refused: there is no passphrase to give.
    public convenience init(privateKeyPEM pem: String) throws {
        let key = try MemoryBIO.reading(Array(pem.utf8)) { bio in
            // The callback gives no passphrase: with NULL, OpenSSL would ask on the terminal.
            try OpenSSLCall.check(
                PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil), "PEM_read_bio_PrivateKey")
        }
        try self.init(taking: key, isPrivate: true)
    }

    /// A public key from a PEM SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`).
    public convenience init(publicKeyPEM pem: String) throws {
        let key = try MemoryBIO.reading(Array(pem.utf8)) { bio in
            try OpenSSLCall.check(
                PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in -1 }, nil), "PEM_read_bio_PUBKEY")
        }
        try self.init(taking: key, isPrivate: false)
    }

    /// A new random P-256 key, e.g. for a sandbox's `.p8`.
    public static func generateP256() throws -> SigningKey {
        try generate(EVP_PKEY_EC) { context in
            try OpenSSLCall.check(
                EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1),
                "EVP_PKEY_CTX_set_ec_paramgen_curve_nid")
        }
    }

    /// A new random RSA key of `bits` bits (at least ``minimumRSABits``), e.g. for a
    /// sandbox's service account.
    public static func generateRSA(bits: Int = 2_048) throws -> SigningKey {
        precondition(bits >= minimumRSABits && bits <= 16_384, "RSA key size out of range")
        return try generate(EVP_PKEY_RSA) { context in
            try OpenSSLCall.check(
                EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        }
    }

    private static func generate(_ type: Int32, configure: (OpaquePointer) throws -> Void) throws -> SigningKey {
        let context = try OpenSSLCall.check(EVP_PKEY_CTX_new_id(type, nil), "EVP_PKEY_CTX_new_id")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try configure(context)
        var key: OpaquePointer?
        try OpenSSLCall.check(EVP_PKEY_keygen(context, &key), "EVP_PKEY_keygen")
        return try SigningKey(taking: OpenSSLCall.check(key, "EVP_PKEY_keygen"), isPrivate: true)
    }

    /// The public half: the key itself when it is public, else a new public-only key.
    public func publicKey() throws -> SigningKey {
        guard isPrivate else { return self }
        return try SigningKey(publicKeyPEM: publicKeyPEM())
    }

    /// The public key as PEM SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`).
    public func publicKeyPEM() throws -> String {
        let bio = try MemoryBIO()
        try OpenSSLCall.check(PEM_write_bio_PUBKEY(bio.pointer, pointer), "PEM_write_bio_PUBKEY")
        return String(decoding: try bio.contents(), as: UTF8.self)
    }

    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), the `.p8` form.
    /// Throws ``CryptoError/invalidKey`` for a public key.
    public func privateKeyPEM() throws -> String {
        guard isPrivate else { throw CryptoError(.invalidKey, "a public key has no private PEM") }
        let bio = try MemoryBIO()
        try OpenSSLCall.check(
            PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil), "PEM_write_bio_PKCS8PrivateKey")
        return String(decoding: try bio.contents(), as: UTF8.self)
    }
}
