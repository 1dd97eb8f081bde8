import FoundationEssentials

/// The claims Herald reads from a user token.
public struct JWTClaims: Sendable, Equatable {
    /// The user id.
    public var sub: String
    /// Expiry; required.
    public var exp: Date
    /// Issued-at; optional.
    public var iat: Date?
    /// Not-before; optional.
    public var nbf: Date?

    public init(sub: String, exp: Date, iat: Date? = nil, nbf: Date? = nil) {
        self.sub = sub
        self.exp = exp
        self.iat = iat
        self.nbf = nbf
    }
}

/// JSON Web Tokens (RFC 7519) in compact form: HS256 user tokens here, ES256 and RS256
/// provider tokens in `JWT+Signing.swift`.
public enum JWT {
    /// Longer tokens are refused before any decoding.
    public static let maxTokenLength = 8_192
    /// The most clock skew ``verifyHS256(_:secret:now:leeway:)`` may allow.
    public static let maxLeeway: TimeInterval = 60

    /// A signed token for `claims`. Times are written as whole seconds (rounded down).
    /// Throws ``CryptoError/invalidKey`` for an empty secret and ``CryptoError/malformedToken``
    /// for a time beyond ``maxClaimSeconds`` either side of 1970.
    public static func signHS256(claims: JWTClaims, secret: [UInt8]) throws -> String {
        guard !secret.isEmpty else { throw CryptoError(.invalidKey, "empty HS256 secret") }
        let header = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#)
        let payload = Base64URL.encode(try encodePayload(claims))
        let signingInput = header + "." + payload
        let signature = HMAC.sha256(key: secret, message: signingInput)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims of `token` once it is proven to be signed with `secret` and valid at `now`.
    ///
    /// The header's `alg` must be exactly `HS256` (`none` and every other value are refused);
    /// a `crit` header is refused; the signature is compared in constant time before the
    /// claims are read; `sub` and `exp` are required; time claims are numbers within
    /// ``maxClaimSeconds`` of 1970 (a larger one is malformed); `now` must be before `exp`, not
    /// before `nbf`, and not before `iat`, each with `leeway` seconds (0 to ``maxLeeway``) of skew.
    public static func verifyHS256(_ token: String, secret: [UInt8], now: Date, leeway: TimeInterval = 0) throws
        -> JWTClaims
    {
        precondition((0...maxLeeway).contains(leeway), "leeway must be between 0 and \(maxLeeway) seconds")
        guard !secret.isEmpty else { throw CryptoError(.invalidKey, "empty HS256 secret") }
        let parts = try split(token)
        let header = try decodeHeader(parts.header)
        guard header.alg == JWTAlgorithm.hs256.rawValue else {
            throw CryptoError(.unsupportedAlgorithm, "alg \(header.alg.prefix(20)) is not HS256")
        }
        guard let signature = Base64URL.decode(parts.signature) else {
            throw CryptoError(.malformedToken, "signature is not base64url")
        }
        let expected = HMAC.sha256(key: secret, message: parts.header + "." + parts.payload)
        guard ConstantTime.equals(signature, expected) else { throw CryptoError(.invalidSignature) }
        let claims = try decodeClaims(parts.payload)
        try check(claims, now: now, leeway: leeway)
        return claims
    }

    // MARK: - Parts

    struct Parts {
        var header: String
        var payload: String
        var signature: String
    }

    static func split(_ token: String) throws -> Parts {
        guard token.utf8.count <= maxTokenLength else {
            throw CryptoError(.malformedToken, "token longer than \(maxTokenLength) bytes")
        }
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces.allSatisfy({ !$0.isEmpty }) else {
            throw CryptoError(.malformedToken, "expected three non-empty parts separated by dots")
        }
        return Parts(header: String(pieces[0]), payload: String(pieces[1]), signature: String(pieces[2]))
    }

    struct Header: Decodable {
        var alg: String
        var typ: String?
        var kid: String?
        var crit: [String]?
    }

    static func decodeHeader(_ part: String) throws -> Header {
        guard let bytes = Base64URL.decode(part) else { throw CryptoError(.malformedToken, "header is not base64url") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes))
        } catch {
            throw CryptoError(.malformedToken, "header is not a JSON object with a string alg")
        }
        if header.crit != nil { throw CryptoError(.unsupportedAlgorithm, "crit header extensions are not supported") }
        if let typ = header.typ, typ.uppercased() != "JWT" {
            throw CryptoError(.malformedToken, "typ must be JWT")
        }
        return header
    }

    // MARK: - Claims

    private struct RawClaims: Decodable {
        var sub: String?
        var exp: Double?
        var iat: Double?
        var nbf: Double?
    }

    private struct WrittenClaims: Encodable {
        var sub: String
        var exp: Int64
        var iat: Int64?
        var nbf: Int64?
    }

    /// The largest time claim (in seconds either side of 1970) a token is signed with: far past
    /// any real expiry, and well inside `Int64`, so writing it as whole seconds cannot trap.
    public static let maxClaimSeconds: Double = 1e15

    static func encodePayload(_ claims: JWTClaims) throws -> String {
        func seconds(_ date: Date) throws -> Int64 {
            let value = date.timeIntervalSince1970
            guard value.isFinite, abs(value) <= maxClaimSeconds else {
                throw CryptoError(.malformedToken, "a time claim is out of range")
            }
            return Int64(value.rounded(.down))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let written = WrittenClaims(
            sub: claims.sub, exp: try seconds(claims.exp), iat: try claims.iat.map(seconds),
            nbf: try claims.nbf.map(seconds))
        return OpenSSLCall.mustSucceed { String(decoding: try encoder.encode(written), as: UTF8.self) }
    }

    static func decodeClaims(_ part: String) throws -> JWTClaims {
        guard let bytes = Base64URL.decode(part) else { throw CryptoError(.malformedToken, "payload is not base64url") }
        let raw: RawClaims
        do {
            raw = try JSONDecoder().decode(RawClaims.self, from: Data(bytes))
        } catch {
            throw CryptoError(.malformedToken, "payload is not a JSON object with string sub and numeric exp, iat, nbf")
        }
        guard let sub = raw.sub, !sub.isEmpty else { throw CryptoError(.missingClaim, "sub") }
        guard let exp = raw.exp else { throw CryptoError(.missingClaim, "exp") }
        for value in [raw.exp, raw.iat, raw.nbf].compactMap({ $0 })
        where !value.isFinite || abs(value) > maxClaimSeconds {
            throw CryptoError(.malformedToken, "a time claim is not a number within \(maxClaimSeconds) of 1970")
        }
        return JWTClaims(
            sub: sub, exp: Date(timeIntervalSince1970: exp), iat: raw.iat.map(Date.init(timeIntervalSince1970:)),
            nbf: raw.nbf.map(Date.init(timeIntervalSince1970:)))
    }

    static func check(_ claims: JWTClaims, now: Date, leeway: TimeInterval) throws {
        if now >= claims.exp.addingTimeInterval(leeway) { throw CryptoError(.expired) }
        if let nbf = claims.nbf, now.addingTimeInterval(leeway) < nbf { throw CryptoError(.notYetValid) }
        if let iat = claims.iat, iat > now.addingTimeInterval(leeway) { throw CryptoError(.issuedInFuture) }
    }
}

/// Signature algorithms by their JOSE names (RFC 7518).
public enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// HMAC with SHA-256: user tokens.
    case hs256 = "HS256"
    /// ECDSA on P-256 with SHA-256: APNs provider tokens.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256: Google service-account assertions.
    case rs256 = "RS256"
}
