import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldStore
import Synchronization

/// Checks the two kinds of caller: apps (HS256 user tokens) and publishers (API keys).
struct Authenticator: Sendable {
    let userTokenSecret: [UInt8]
    let store: any HeraldStore
    let now: @Sendable () -> Date
    /// The realm of every 401's `WWW-Authenticate: Bearer` challenge.
    static let realm = "herald"
    private let keyCache = APIKeyCache()
    private let tokenCache = VerifiedTokenCache()

    /// The longest a user token may still have to live (`exp - now`); see ``HeraldConfiguration/maxTokenLifetime``.
    let maxTokenLifetime: TimeInterval

    init(
        userTokenSecret: [UInt8], store: any HeraldStore, maxTokenLifetime: TimeInterval,
        now: @escaping @Sendable () -> Date
    ) {
        self.userTokenSecret = userTokenSecret
        self.store = store
        self.maxTokenLifetime = maxTokenLifetime
        self.now = now
    }

    /// The user id of a valid `Authorization: Bearer <user token>`; 401 `unauthenticated` otherwise.
    func user(_ request: Request) throws -> String {
        try session(request).user
    }

    /// The user id and the token's expiry (a live stream ends then). The token must be signed with
    /// the secret and unexpired, its `sub` a valid user id, and its `exp` at most
    /// ``maxTokenLifetime`` (plus ``JWT/maxLeeway`` of clock skew between issuer and server) away.
    func session(_ request: Request) throws -> (user: String, expires: Date) {
        guard let token = Self.bearer(request) else {
            throw HTTPError.missingCredential("A user token is required: send Authorization: Bearer <token>.")
        }
        let now = now()
        if let cached = tokenCache.session(of: token, at: now) { return cached }
        let claims: JWTClaims
        do {
            claims = try JWT.verifyHS256(token, secret: userTokenSecret, now: now)
        } catch {
            let reason = (error as? CryptoError)?.description ?? "it cannot be verified"
            throw HTTPError.invalidCredential("The user token is not valid: \(reason).")
        }
        guard (try? Validate.userID(claims.sub, field: "sub")) != nil else {
            throw HTTPError.invalidCredential(
                "The user token is not valid: its sub is not a user id (1 to \(Limits.userIdMaxLength) of A-Z a-z 0-9 . _ : @ -)."
            )
        }
        // A token only grows shorter-lived, so one checked once stays within the lifetime.
        guard claims.exp.timeIntervalSince(now) <= maxTokenLifetime + JWT.maxLeeway else {
            throw HTTPError.invalidCredential(
                "The user token is not valid: it expires more than \(Int(maxTokenLifetime)) seconds from now, the longest lifetime this server accepts."
            )
        }
        tokenCache.insert(token, subject: claims.sub, expires: claims.exp)
        return (claims.sub, claims.exp)
    }

    /// The API key record of a valid publisher key; 401 `unauthenticated` otherwise.
    func publisher(_ request: Request) async throws -> APIKeyRecord {
        guard let key = Self.bearer(request) ?? request.headers["X-Api-Key"] else {
            throw HTTPError.missingCredential("A publisher API key is required: send Authorization: Bearer <key>.")
        }
        let hash = APIKeys.hash(key)
        if let cached = keyCache.record(hash: hash) { return cached }
        guard let record = try await store.apiKey(hash: hash) else {
            throw HTTPError.invalidCredential("The API key is not valid.")
        }
        keyCache.insert(record)
        return record
    }

    /// The credential of `Authorization: Bearer <credential>` (scheme case-insensitive).
    private static func bearer(_ request: Request) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        var token = parts[1]
        while let last = token.last, last == " " || last == "\t" { token = token.dropLast() }
        return token.isEmpty ? nil : String(token)
    }
}

extension HTTPError {
    /// 401 `unauthenticated` for a request without the credential it needs:
    /// `WWW-Authenticate: Bearer realm="herald"`.
    static func missingCredential(_ message: String) -> HTTPError {
        .unauthenticated(message, challenge: BearerChallenge(realm: Authenticator.realm))
    }

    /// 401 `unauthenticated` for a credential that was refused: `WWW-Authenticate: Bearer
    /// realm="herald", error="invalid_token", error_description="<message>"`.
    static func invalidCredential(_ message: String) -> HTTPError {
        .unauthenticated(
            message,
            challenge: BearerChallenge(realm: Authenticator.realm, error: "invalid_token", errorDescription: message))
    }
}

/// Keys are never revoked in this version, so a found key stays valid for the process.
private final class APIKeyCache: Sendable {
    private let records = Mutex<[String: APIKeyRecord]>([:])

    func record(hash: String) -> APIKeyRecord? { records.withLock { $0[hash] } }
    func insert(_ record: APIKeyRecord) { records.withLock { $0[record.hash] = record } }
}

/// User tokens that verified, with their subject and expiry: an app's next request skips the
/// HMAC and JSON work. Expiry is checked on every use; the secret is fixed for the process, so a
/// token that verified once verifies again until it expires.
private final class VerifiedTokenCache: Sendable {
    /// Past this many tokens the cache starts over (bounded memory, no eviction bookkeeping).
    static let capacity = 65_536

    private let entries = Mutex<[String: (subject: String, expires: Date)]>([:])

    func session(of token: String, at now: Date) -> (user: String, expires: Date)? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard entry.expires > now else {
                entries[token] = nil
                return nil
            }
            return (entry.subject, entry.expires)
        }
    }

    func insert(_ token: String, subject: String, expires: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = (subject, expires)
        }
    }
}

/// Publisher API keys: `hk_<id>_<secret>`, stored only as a SHA-256 hash.
enum APIKeys {
    static func generate(name: String, now: Date) -> (key: String, record: APIKeyRecord) {
        let id = Hex.encode(SecureRandom.bytes(count: 6))
        let secret = Base64URL.encode(SecureRandom.bytes(count: 24))
        let key = "hk_\(id)_\(secret)"
        return (key, APIKeyRecord(id: "key_\(id)", name: name, hash: hash(key), createdAt: now))
    }

    static func hash(_ key: String) -> String {
        Hex.encode(SHA256.hash(Array(key.utf8)))
    }
}

/// User tokens for development and tests.
enum UserTokens {
    static func mint(user: String, ttl: TimeInterval, secret: [UInt8], now: Date) throws -> String {
        try JWT.signHS256(claims: JWTClaims(sub: user, exp: now.addingTimeInterval(ttl), iat: now), secret: secret)
    }
}
