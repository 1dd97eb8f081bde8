import FoundationEssentials
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

    /// The call rate of each API key; `nil` when off.
    let publisherRate: PublisherRateLimiter?

    /// How long a console sign-in lasts.
    let consoleSessions: ConsoleSessionSettings

    init(
        userTokenSecret: [UInt8], store: any HeraldStore, maxTokenLifetime: TimeInterval,
        publisherRate: PublisherRateLimiter? = nil, consoleSessions: ConsoleSessionSettings = ConsoleSessionSettings(),
        now: @escaping @Sendable () -> Date
    ) {
        self.userTokenSecret = userTokenSecret
        self.store = store
        self.maxTokenLifetime = maxTokenLifetime
        self.publisherRate = publisherRate
        self.consoleSessions = consoleSessions
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

    /// The API key record of a valid publisher key within its call rate; 401 `unauthenticated`
    /// for a missing, unknown or revoked key, 429 `rate_limited` (with `Retry-After`) for a key
    /// over its rate (see ``PublisherRateLimiter``).
    ///
    /// A found key is cached and read again from the store once its entry is
    /// ``APIKeyCache/recheckInterval`` old, so a key revoked through any server or `herald keys
    /// revoke` is refused by every server sharing the database within that time; the key's last
    /// use is written at most once per ``APIKeyCache/useRecordInterval``.
    ///
    /// Without a key, a console session (its cookie) stands for the key it signed in with; every
    /// call but GET and HEAD must then carry the session's CSRF token in `X-CSRF-Token`.
    /// Key `id` was revoked through this server: refused here at once.
    func keyRevoked(id: String) {
        keyCache.remove(id: id)
    }

    func publisher(_ request: Request) async throws -> APIKeyRecord {
        guard let key = Self.bearer(request) ?? request.headers["X-Api-Key"] else {
            return try await consolePublisher(request)
        }
        let hash = APIKeys.hash(key)
        let now = now()
        let record: APIKeyRecord
        if let cached = keyCache.record(hash: hash, at: now) {
            record = cached
        } else {
            guard let found = try await store.apiKey(hash: hash) else {
                keyCache.remove(hash: hash)
                throw HTTPError.invalidCredential("The API key is not valid: it is unknown or was revoked.")
            }
            keyCache.insert(found, checkedAt: now)
            record = found
        }
        if keyCache.shouldRecordUse(hash: hash, at: now) {
            // Best effort: a failed write leaves the previous time, and the next minute tries again.
            try? await store.recordAPIKeyUse(id: record.id, at: now)
        }
        try publisherRate?.take(record.id, at: now)
        return record
    }

    /// The key a console session signed in with, for a publisher call made with its cookie.
    private func consolePublisher(_ request: Request) async throws -> APIKeyRecord {
        let signedIn = try await consoleSession(
            request,
            missing: "A publisher API key is required: send Authorization: Bearer <key> (or sign in to the console).")
        if request.method != .GET && request.method != .HEAD {
            try ConsoleSessions.checkChange(request, by: signedIn)
        }
        try publisherRate?.take(signedIn.key.id, at: now())
        return signedIn.key
    }

    /// The live console session of the request's cookie, seen now. 401 when the request carries
    /// none (`missing` says what to send instead) or when it ended (idle, too old, signed out, or
    /// its key revoked).
    func consoleSession(_ request: Request, missing: String) async throws -> ConsoleSignIn {
        guard let secret = ConsoleSessions.secret(in: request) else { throw HTTPError.missingCredential(missing) }
        let now = now()
        guard
            let found = try await store.consoleSession(
                hash: ConsoleSessions.hash(secret), now: now,
                idleBefore: now.addingTimeInterval(-consoleSessions.idleTimeout),
                createdBefore: now.addingTimeInterval(-consoleSessions.lifetime))
        else { throw HTTPError.invalidCredential("The console session has ended: sign in again.") }
        return ConsoleSignIn(
            session: found.session, key: found.key, csrfToken: ConsoleSessions.csrfToken(secret),
            expiresAt: found.session.createdAt.addingTimeInterval(consoleSessions.lifetime))
    }

    /// The credential of `Authorization: Bearer <credential>` (scheme case-insensitive).
    private static func bearer(_ request: Request) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimming(where: \.isSpaceOrTab)
        return token.isEmpty ? nil : token
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

/// API keys found in the store, each re-read once its entry is ``recheckInterval`` old (one
/// indexed read per key and second, whatever the request rate), and the time each key's use was
/// last written. Bounded by the number of valid keys: unknown keys are never cached.
final class APIKeyCache: Sendable {
    /// How long a found key is trusted before the store is asked again: a revocation reaches
    /// every server within this time.
    static let recheckInterval: TimeInterval = 1
    /// How often one server writes a key's last use.
    static let useRecordInterval: TimeInterval = 60

    private struct Entry {
        var record: APIKeyRecord
        var checkedAt: Date
        var useRecordedAt: Date?
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The cached key, while its entry is younger than ``recheckInterval`` (a clock that went
    /// back counts as stale).
    func record(hash: String, at now: Date) -> APIKeyRecord? {
        entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            let age = now.timeIntervalSince(entry.checkedAt)
            return age >= 0 && age < Self.recheckInterval ? entry.record : nil
        }
    }

    /// Caches `record` as read at `checkedAt`, keeping when its use was last written.
    func insert(_ record: APIKeyRecord, checkedAt: Date) {
        entries.withLock { entries in
            let recorded = entries[record.hash]?.useRecordedAt
            entries[record.hash] = Entry(record: record, checkedAt: checkedAt, useRecordedAt: recorded)
        }
    }

    func remove(hash: String) {
        _ = entries.withLock { $0.removeValue(forKey: hash) }
    }

    /// Forgets key `id` (revoked here): this server refuses it at once, the others within
    /// ``recheckInterval``.
    func remove(id: String) {
        entries.withLock { entries in entries = entries.filter { $0.value.record.id != id } }
    }

    /// Whether this use is the one to write (the first, or ``useRecordInterval`` after the last
    /// written); if so it counts as written, so requests at once write it once.
    func shouldRecordUse(hash: String, at now: Date) -> Bool {
        entries.withLock { entries in
            guard var entry = entries[hash] else { return false }
            if let recorded = entry.useRecordedAt {
                let age = now.timeIntervalSince(recorded)
                guard age < 0 || age >= Self.useRecordInterval else { return false }
            }
            entry.useRecordedAt = now
            entries[hash] = entry
            return true
        }
    }
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
