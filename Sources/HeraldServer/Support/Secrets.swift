import Foundation
import HeraldCrypto
import HeraldStore

/// The user-token secret: configured, or generated once and kept in the database so
/// tokens stay valid across restarts.
enum UserTokenSecret {
    static let settingKey = "user_token_secret"

    static func resolve(configured: String?, store: any HeraldStore) async throws -> [UInt8] {
        if let configured, !configured.isEmpty { return Array(configured.utf8) }
        let generated = Base64URL.encode(SecureRandom.bytes(count: 32))
        let stored = try await store.setSettingIfAbsent(settingKey, value: generated)
        return Array(stored.utf8)
    }
}
