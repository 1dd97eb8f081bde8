import COpenSSL

/// SHA-256.
public enum SHA256 {
    public static let byteCount = 32

    /// The digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        OpenSSLCall.mustSucceed {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            try bytes.withUnsafeBufferPointer { input in
                try OpenSSLCall.check(
                    EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil), "EVP_Digest")
            }
            return Array(digest.prefix(Int(length)))
        }
    }

    /// The digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }
}

/// HMAC message authentication.
public enum HMAC {
    /// HMAC-SHA-256 of `message` under `key` (any length, including empty).
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        OpenSSLCall.mustSucceed {
            var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            // OpenSSL reads a NULL key as "no key"; an empty key still needs a valid pointer.
            let keyBytes = key.isEmpty ? [0] : key
            try keyBytes.withUnsafeBytes { keyBuffer in
                try message.withUnsafeBufferPointer { input in
                    var dummy: UInt8 = 0
                    try withUnsafeMutablePointer(to: &dummy) { empty in
                        _ = try OpenSSLCall.check(
                            COpenSSL.HMAC(
                                EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                                input.baseAddress ?? UnsafePointer(empty), input.count, &mac, &length),
                            "HMAC")
                    }
                }
            }
            return Array(mac.prefix(Int(length)))
        }
    }

    /// HMAC-SHA-256 over UTF-8 text.
    public static func sha256(key: [UInt8], message: String) -> [UInt8] {
        sha256(key: key, message: Array(message.utf8))
    }
}

/// Comparison whose time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether `a` and `b` are equal. Different lengths are unequal at once; lengths of
    /// MACs and hashes are not secret.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }
}

/// Random bytes from OpenSSL's cryptographically secure generator.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "count out of range")
        if count == 0 { return [] }
        return OpenSSLCall.mustSucceed {
            var buffer = [UInt8](repeating: 0, count: count)
            try OpenSSLCall.check(RAND_bytes(&buffer, Int32(count)), "RAND_bytes")
            return buffer
        }
    }

    /// `count` random bytes; the same as ``bytes(count:)``.
    public static func bytes(_ count: Int) -> [UInt8] { bytes(count: count) }
}
