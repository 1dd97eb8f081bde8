import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldStore
import Synchronization

/// Checks the two kinds of caller: apps (HS256 user tokens) and publishers (API keys).
struct Authenticator: Sendable {
    let userTokenSecret: [UInt8]
    let store: any HeraldStore
    let now: @Sendable () -> Date
    private let keyCache = APIKeyCache()

    init(userTokenSecret: [UInt8], store: any HeraldStore, now: @escaping @Sendable () -> Date) {
        self.userTokenSecret = userTokenSecret
        self.store = store
        self.now = now
    }

    /// The user id of a valid `Authorization: Bearer <user token>`; 401 `unauthenticated` otherwise.
    func user(_ request: Request) throws -> String {
        guard let token = Self.bearer(request) else {
            throw HTTPError(401, code: "unauthenticated", message: "A user token is required: send Authorization: Bearer <token>.")
        }
        do {
            let claims = try JWT.verifyHS256(token, secret: userTokenSecret, now: now())
            guard !claims.sub.isEmpty else { throw HTTPError.unauthenticatedToken }
            return claims.sub
        } catch {
            throw HTTPError.unauthenticatedToken
        }
    }

    /// The API key record of a valid publisher key; 401 `unauthenticated` otherwise.
    func publisher(_ request: Request) async throws -> APIKeyRecord {
        guard let key = Self.bearer(request) ?? request.headers["X-Api-Key"] else {
            throw HTTPError(401, code: "unauthenticated", message: "A publisher API key is required: send Authorization: Bearer <key>.")
        }
        let hash = APIKeys.hash(key)
        if let cached = keyCache.record(hash: hash) { return cached }
        guard let record = try await store.apiKey(hash: hash) else {
            throw HTTPError(401, code: "unauthenticated", message: "The API key is not valid.")
        }
        keyCache.insert(record)
        return record
    }

    private static func bearer(_ request: Request) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

extension HTTPError {
    static let unauthenticatedToken = HTTPError(
        401, code: "unauthenticated", message: "The user token is invalid or has expired.")
}

/// Keys are never revoked in this version, so a found key stays valid for the process.
private final class APIKeyCache: Sendable {
    private let records = Mutex<[String: APIKeyRecord]>([:])

    func record(hash: String) -> APIKeyRecord? { records.withLock { $0[hash] } }
    func insert(_ record: APIKeyRecord) { records.withLock { $0[record.hash] = record } }
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
