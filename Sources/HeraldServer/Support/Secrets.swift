import FoundationEssentials
import HeraldCrypto
import HeraldStore

/// The user-token secret: configured, or generated once and kept in the database so
/// tokens stay valid across restarts.
enum UserTokenSecret {
    static let settingKey = "user_token_secret"

    /// A shorter configured secret could be brute-forced into tokens for any user.
    static let minimumLength = 32

    static func resolve(configured: String?, store: any HeraldStore) async throws -> [UInt8] {
        if let configured, !configured.isEmpty {
            guard configured.utf8.count >= minimumLength else { throw SecretTooShort() }
            return Array(configured.utf8)
        }
        // Read first: a restart generates nothing (and so does not start OpenSSL's generator,
        // which maps a few MiB of libcrypto into an otherwise idle server).
        if let stored = try await store.setting(settingKey) { return Array(stored.utf8) }
        let generated = Base64URL.encode(SecureRandom.bytes(count: 32))
        let stored = try await store.setSettingIfAbsent(settingKey, value: generated)
        return Array(stored.utf8)
    }
}

/// The configured user-token secret is too short to be safe.
struct SecretTooShort: Error, CustomStringConvertible {
    var description: String {
        "the user-token secret (HERALD_USER_TOKEN_SECRET, --user-token-secret) must be at least \(UserTokenSecret.minimumLength) bytes; leave it unset to have one generated"
    }
}
