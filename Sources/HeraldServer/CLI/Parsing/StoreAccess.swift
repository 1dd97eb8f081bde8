import FoundationEssentials
import HeraldStore

/// The store of `--database`, for the commands that need nothing else of the server (`keys`,
/// `token`, `send` and `broadcast` without `--api-key`, `bench`): opened and migrated as `serve`
/// opens it, without routes, push clients or jobs.
struct StoreAccess {
    let store: any HeraldStore

    init(_ args: Arguments) async throws {
        store = try await StoreFactory.open(url: args.databaseURL)
    }

    /// Creates a publisher API key named `name` and answers it; only its hash is stored.
    func createAPIKey(name: String) async throws -> String {
        let (key, record) = APIKeys.generate(name: name, now: Date())
        try await store.createAPIKey(record)
        return key
    }

    /// Mints user tokens with `secret`, else the server's secret kept in the database (made there
    /// when there is none yet, as `serve` makes it).
    func userTokens(secret: String?) async throws -> UserTokenMinter {
        UserTokenMinter(secret: try await UserTokenSecret.resolve(configured: secret, store: store))
    }
}

/// Signs user tokens with one server secret.
struct UserTokenMinter {
    let secret: [UInt8]

    func mint(_ user: String, ttl: Int) throws -> String {
        try UserTokens.mint(user: user, ttl: TimeInterval(ttl), secret: secret, now: Date())
    }
}
