import COpenSSL

extension SigningKey {
    /// The JWS signature of `message` with SHA-256: for P-256 the raw 64-byte `r || s` of
    /// ES256, for RSA the RSASSA-PKCS1-v1_5 signature of RS256. Throws
    /// ``CryptoError/invalidKey`` for a public key.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard isPrivate else { throw CryptoError(.invalidKey, "a public key cannot sign") }
        let context = try OpenSSLCall.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer), "EVP_DigestSignInit")
        var length = 0
        try OpenSSLCall.check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign")
        var signature = [UInt8](repeating: 0, count: length)
        try OpenSSLCall.check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign")
        let produced = Array(signature.prefix(length))
        switch kind {
        case .p256: return try ECDSASignature.raw(fromDER: produced)
        case .rsa: return produced
        }
    }

    /// Whether `signature` (in the JWS form ``sign(_:)`` produces) is a valid SHA-256
    /// signature of `message` under this key. A malformed signature is simply invalid.
    public func verify(_ signature: [UInt8], for message: [UInt8]) throws -> Bool {
        let encoded: [UInt8]
        switch kind {
        case .p256:
            guard let der = try? ECDSASignature.der(fromRaw: signature) else { return false }
            encoded = der
        case .rsa:
            encoded = signature
        }
        let context = try OpenSSLCall.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check(EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer), "EVP_DigestVerifyInit")
        // 1: valid; 0: invalid; negative: malformed signature. Only 1 counts.
        let result = EVP_DigestVerify(context, encoded, encoded.count, message, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }
}

/// ECDSA P-256 signatures between DER (`SEQUENCE { INTEGER r, INTEGER s }`, what OpenSSL
/// and `openssl dgst` use) and the fixed 64-byte `r || s` of JWS (RFC 7518 §3.4).
public enum ECDSASignature {
    /// Bytes of each of `r` and `s` in the raw form.
    public static let componentLength = 32

    /// The raw `r || s` of a strict DER signature. Throws ``CryptoError/invalidSignature``
    /// for anything but minimal DER with two non-negative integers of at most 32 bytes.
    public static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        var reader = DERReader(bytes: der[...])
        var sequence = try reader.element(tag: 0x30)
        guard reader.bytes.isEmpty else { throw CryptoError(.invalidSignature, "bytes after the DER sequence") }
        let r = try sequence.integer()
        let s = try sequence.integer()
        guard sequence.bytes.isEmpty else { throw CryptoError(.invalidSignature, "bytes after s") }
        return pad(r) + pad(s)
    }

    /// The DER encoding of a raw `r || s`. Throws ``CryptoError/invalidSignature`` unless
    /// `raw` is exactly 64 bytes.
    public static func der(fromRaw raw: [UInt8]) throws -> [UInt8] {
        guard raw.count == 2 * componentLength else {
            throw CryptoError(.invalidSignature, "ES256 signature is \(raw.count) bytes, not 64")
        }
        let body = integer(raw[..<componentLength]) + integer(raw[componentLength...])
        return [0x30, UInt8(body.count)] + body
    }

    /// A minimal DER INTEGER holding the unsigned big-endian `magnitude`.
    private static func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(magnitude.drop { $0 == 0 })
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }

    private static func pad(_ value: ArraySlice<UInt8>) -> [UInt8] {
        [UInt8](repeating: 0, count: componentLength - value.count) + value
    }

    /// Reads the short-form DER that a P-256 signature always is (at most 72 bytes).
    private struct DERReader {
        var bytes: ArraySlice<UInt8>

        mutating func element(tag: UInt8) throws -> DERReader {
            guard bytes.count >= 2, bytes.first == tag else { throw CryptoError(.invalidSignature, "expected DER tag") }
            let length = Int(bytes[bytes.startIndex + 1])
            guard length < 0x80, bytes.count >= 2 + length else {
                throw CryptoError(.invalidSignature, "bad DER length")
            }
            let content = bytes.dropFirst(2).prefix(length)
            bytes = bytes.dropFirst(2 + length)
            return DERReader(bytes: content)
        }

        /// A positive, minimally encoded INTEGER of at most 32 magnitude bytes.
        mutating func integer() throws -> ArraySlice<UInt8> {
            let value = try element(tag: 0x02).bytes
            guard let first = value.first else { throw CryptoError(.invalidSignature, "empty INTEGER") }
            guard first & 0x80 == 0 else { throw CryptoError(.invalidSignature, "negative INTEGER") }
            if first == 0, value.count > 1, value[value.startIndex + 1] & 0x80 == 0 {
                throw CryptoError(.invalidSignature, "INTEGER with a needless leading zero")
            }
            let magnitude = value.drop { $0 == 0 }
            guard magnitude.count <= componentLength else { throw CryptoError(.invalidSignature, "INTEGER too long") }
            return magnitude
        }
    }
}
