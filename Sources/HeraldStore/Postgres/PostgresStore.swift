import Foundation
import HeraldLog
import HeraldModel
import Synchronization

/// The shared store: one PostgreSQL database that several `herald` processes can use at once.
///
/// It holds a bounded pool of connections (see ``PostgresConnectionPool``), each used from its
/// own serial queue, so no libpq call ever blocks a cooperative thread; a transaction keeps one
/// connection from start to end. A connection the database dropped is replaced on its next
/// use; a call that cannot reach the database fails with ``StoreError/Code/unavailable``.
/// The inbox, outbox, delivery and broadcast statements are the ones SQLite runs
/// (``InboxStatements`` and its neighbours); what differs is locking, since other processes
/// write at once: read-modify-writes lock their rows, claims skip rows another claimer holds.
public final class PostgresStore: HeraldStore {
    /// The connections of this store (tests look at how many were opened and who waits).
    let pool: PostgresConnectionPool
    /// Where the store connected, for the live-change listener's own connection.
    let url: String
    /// The live-change listener, while changes are watched (see `PostgresStore+LiveChanges.swift`).
    let listener = Mutex<PostgresListener?>(nil)
    /// The changes this process's own transactions commit (the listener hears the others').
    let feed: ChangeFeed
    /// The migration versions applied when this store opened (empty when the schema was already current).
    public let appliedMigrations: [Int]
    /// The application's logger: the listener's lost sessions and reconnects go here.
    let logger: Logger

    /// Every migration of the PostgreSQL store, oldest first.
    public static var migrations: [Migration] { Migration.all(.postgres) }

    /// The first key of the session advisory lock held while migrating (the second is the
    /// schema's hash), so processes starting at once migrate one after the other.
    static let migrationLockKey: Int32 = 0x4852_4C44  // "HRLD"

    /// Connects to a `postgres://` or `postgresql://` URL (libpq's URI syntax, e.g.
    /// `postgres://herald@127.0.0.1:5432/herald`) and applies pending migrations. Anything
    /// else throws ``StoreError/Code/invalidDatabaseURL``; a database that cannot be reached
    /// throws ``StoreError/Code/unavailable``.
    public static func open(
        url: String, pool settings: PostgresPoolSettings = PostgresPoolSettings(), logger: Logger = .disabled
    ) throws -> PostgresStore {
        try open(url: url, pool: settings, timer: .dispatch, logger: logger)
    }

    static func open(
        url: String, pool settings: PostgresPoolSettings, timer: PostgresPoolTimer, logger: Logger = .disabled
    ) throws -> PostgresStore {
        guard isPostgresURL(url) else {
            throw StoreError(
                code: .invalidDatabaseURL,
                message: "unsupported database URL scheme; expected postgres://user@host:port/database")
        }
        let connectTimeout = settings.connectTimeoutSeconds
        let feed = ChangeFeed()
        return try PostgresStore(
            url: url, logger: logger, feed: feed,
            pool: PostgresConnectionPool(settings: settings, timer: timer) { () throws(StoreError) in
                let connection = try PostgresConnection(url: url, connectTimeoutSeconds: connectTimeout)
                connection.feed = feed
                return connection
            })
    }

    /// Whether `url` names a PostgreSQL database.
    public static func isPostgresURL(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    private init(url: String, logger: Logger, feed: ChangeFeed, pool: PostgresConnectionPool) throws {
        self.logger = logger
        self.feed = feed
        self.url = url
        self.pool = pool
        appliedMigrations = try pool.runBlocking { db in try Self.migrate(db) }
    }

    // MARK: Migrations

    /// Applies pending migrations, each in its own transaction, and returns every version this
    /// store instance applied, at open or now: `[]` when the database was already current.
    @discardableResult
    public func migrate() throws -> [Int] {
        try appliedMigrations + pool.runBlocking { db in try Self.migrate(db) }
    }

    /// The versions recorded in `schema_migrations`, ascending.
    public func schemaVersions() throws -> [Int] {
        try pool.runBlocking { db in
            try db.query("SELECT version FROM schema_migrations ORDER BY version") { row throws(StoreError) in
                try row.int(0)
            }
        }
    }

    private static func migrate(_ db: PostgresConnection) throws -> [Int] {
        let migrations = Migration.all(.postgres)
        for (earlier, later) in zip(migrations, migrations.dropFirst()) {
            precondition(earlier.version < later.version, "migrations must be in ascending version order")
        }
        let lock: SQL = "\(Int(migrationLockKey)), hashtext(current_schema())"
        try db.execute("SELECT pg_advisory_lock(\(lock))")
        defer { _ = try? db.execute("SELECT pg_advisory_unlock(\(lock))") }
        try db.executeUncached(Migration.bookkeeping(.postgres))
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try db.transaction { () throws -> Bool in
                let recorded = try db.queryOne(
                    "SELECT 1 FROM schema_migrations WHERE version = \(migration.version)"
                ) { _ in true }
                guard recorded == nil else { return false }
                for statement in migration.sql {
                    try db.executeUncached(statement)
                }
                try db.execute(
                    """
                    INSERT INTO schema_migrations (version, name, applied_at)
                    VALUES (\(migration.version), \(migration.name), \(Date()))
                    """)
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    // MARK: Access

    /// Runs `body` on a connection of the pool in one transaction. When the connection is lost
    /// after `BEGIN` the call fails as unavailable and is not run again (see ``PostgresWork``).
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.run(.transaction) { db in try db.transaction { try body(db) } }
    }

    /// Runs `body`, which only reads, on a connection of the pool, each statement in its own
    /// implicit transaction; run once more on a new connection when the first was lost under it.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.run(.read, body)
    }

    // MARK: Settings

    public func setting(_ key: String) async throws -> String? {
        try await read { db in try AccountStatements.setting(key, db) }
    }

    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try await write { db in try AccountStatements.setSettingIfAbsent(key, value: value, db) }
    }

    public func sharedProviderToken(
        keyID: String, candidate: SharedProviderToken, staleBefore: Date, rejected: Set<String>
    ) async throws -> SharedProviderToken {
        try await write { db in
            try AccountStatements.sharedProviderToken(
                keyID: keyID, candidate: candidate, staleBefore: staleBefore, rejected: rejected, db)
        }
    }

    // MARK: API keys

    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try await write { db in try AccountStatements.createAPIKey(key, db) }
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await read { db in try AccountStatements.apiKey(hash: hash, db) }
    }

    public func apiKeys() async throws -> [APIKeyRecord] {
        try await read { db in try AccountStatements.apiKeys(db) }
    }

    public func revokeAPIKey(id: String, at: Date) async throws -> APIKeyRevocation {
        try await write { db in try AccountStatements.revokeAPIKey(id: id, at: at, db) }
    }

    public func recordAPIKeyUse(id: String, at: Date) async throws {
        try await write { db in try AccountStatements.recordAPIKeyUse(id: id, at: at, db) }
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> Preferences? {
        try await read { db in try AccountStatements.storedPreferences(db, userID: userID) }
    }

    public func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        try await withoutActuallyEscaping(update) { update in
            try await write { db in
                // The row is created first (undone if `update` throws) so that the locking read
                // below serializes read-modify-write cycles of other processes on it.
                try AccountStatements.storePreferences(db, userID: userID, initial, replacing: false)
                guard var preferences = try AccountStatements.storedPreferences(db, userID: userID, locking: true)
                else {
                    throw StoreError(code: .invalidStoredValue, message: "preferences row missing after insert")
                }
                try update(&preferences)
                try AccountStatements.storePreferences(db, userID: userID, preferences, replacing: true)
                return preferences
            }
        }
    }

    // MARK: Devices

    public func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device {
        try await write { db in try AccountStatements.upsertDevice(userID: userID, registration, at: at, db) }
    }

    public func deleteDevice(userID: String, token: String) async throws -> Bool {
        try await write { db in try AccountStatements.deleteDevice(userID: userID, token: token, db) }
    }

    public func devices(userID: String) async throws -> [Device] {
        try await read { db in try AccountStatements.devices(userID: userID, db) }
    }

    // MARK: Analytics

    public func insertEvents(userID: String, _ events: [AnalyticsEvent], receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        try await write { db in
            try AccountStatements.insertEvents(userID: userID, events, receivedAt: receivedAt, db)
        }
    }

    public func eventCount(userID: String) async throws -> Int {
        try await read { db in try AccountStatements.eventCount(userID: userID, db) }
    }

    // MARK: App config

    public func appConfig() async throws -> AppConfigDocument? {
        try await read { db in try AccountStatements.appConfig(db) }
    }

    public func setAppConfig(_ document: AppConfigDocument, at: Date) async throws {
        let text = try StoreJSON.encode(document)
        try await write { db in try AccountStatements.setAppConfig(encoded: text, at: at, db) }
    }

    // MARK: Readiness

    public func ping() async throws {
        try await read { db in try AccountStatements.ping(db) }
    }
}
