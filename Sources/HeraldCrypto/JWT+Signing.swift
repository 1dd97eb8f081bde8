import FoundationEssentials

/// The header of a verified ES256 or RS256 token.
public struct JWTHeader: Sendable, Equatable {
    /// The algorithm, equal to the verifying key's.
    public var alg: JWTAlgorithm
    /// The key id, when the token names one.
    public var kid: String?

    public init(alg: JWTAlgorithm, kid: String?) {
        self.alg = alg
        self.kid = kid
    }
}

/// A token whose signature has been checked, with its decoded claims.
public struct VerifiedJWT<Claims: Sendable>: Sendable {
    /// The header.
    public var header: JWTHeader
    /// The claims. Times are not checked: each provider has its own rules.
    public var claims: Claims
}

extension JWT {
    /// A compact token for `claims`, signed with `key` (ES256 for P-256, RS256 for RSA).
    ///
    /// `header` carries `kid`, `typ` and the like; `alg` is set from the key, and an `alg`
    /// given for another algorithm throws ``CryptoError/unsupportedAlgorithm``.
    public static func sign(header: [String: String], claims: some Encodable, key: SigningKey) throws -> String {
        if let alg = header["alg"], alg != key.algorithm.rawValue {
            throw CryptoError(.unsupportedAlgorithm, "alg \(alg.prefix(20)) does not match a \(key.algorithm) key")
        }
        var fields = header
        fields["alg"] = key.algorithm.rawValue
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput =
            Base64URL.encode(Array(try encoder.encode(fields))) + "."
            + Base64URL.encode(Array(try encoder.encode(claims)))
        return signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8)))
    }

    /// The header and claims of `token` once its signature is proven to be `key`'s.
    ///
    /// The header's `alg` must be the key's own algorithm (so `none`, `HS256` and the other
    /// asymmetric algorithm are refused with ``CryptoError/unsupportedAlgorithm``); `crit` is
    /// refused; claims are decoded only after the signature checks out.
    public static func verify<Claims: Decodable & Sendable>(
        _ token: String, key: SigningKey, claims: Claims.Type
    ) throws -> VerifiedJWT<Claims> {
        let parts = try split(token)
        let header = try decodeHeader(parts.header)
        guard header.alg == key.algorithm.rawValue, let alg = JWTAlgorithm(rawValue: header.alg) else {
            throw CryptoError(.unsupportedAlgorithm, "alg \(header.alg.prefix(20)) is not \(key.algorithm.rawValue)")
        }
        guard let signature = Base64URL.decode(parts.signature) else {
            throw CryptoError(.malformedToken, "signature is not base64url")
        }
        guard try key.verify(signature, for: Array((parts.header + "." + parts.payload).utf8)) else {
            throw CryptoError(.invalidSignature)
        }
        guard let payload = Base64URL.decode(parts.payload) else {
            throw CryptoError(.malformedToken, "payload is not base64url")
        }
        do {
            let decoded = try JSONDecoder().decode(Claims.self, from: Data(payload))
            return VerifiedJWT(header: JWTHeader(alg: alg, kid: header.kid), claims: decoded)
        } catch {
            throw CryptoError(.malformedToken, "payload does not hold the expected claims: \(error)")
        }
    }
}

/// The claims of an APNs provider token: the team id and the time it was made.
public struct APNsProviderClaims: Codable, Sendable, Equatable {
    /// The Apple developer team id.
    public var iss: String
    /// Issued-at, in whole seconds since 1970.
    public var iat: Int64

    public init(iss: String, iat: Int64) {
        self.iss = iss
        self.iat = iat
    }
}

/// The claims of a Google service-account assertion exchanged for an OAuth2 access token.
public struct ServiceAccountAssertionClaims: Codable, Sendable, Equatable {
    /// The service account's `client_email`.
    public var iss: String
    /// Space-separated OAuth scopes.
    public var scope: String
    /// The token endpoint (`token_uri`).
    public var aud: String
    /// Issued-at, in whole seconds since 1970.
    public var iat: Int64
    /// Expiry, at most an hour after `iat`.
    public var exp: Int64

    public init(iss: String, scope: String, aud: String, iat: Int64, exp: Int64) {
        self.iss = iss
        self.scope = scope
        self.aud = aud
        self.iat = iat
        self.exp = exp
    }
}
