import Foundation
import HeraldModel

/// The embedded store: one SQLite file in WAL mode.
///
/// Writes go through ONE writer connection, serialized behind a lock, each in a
/// `BEGIN IMMEDIATE` transaction; reads use a small pool of reader connections concurrently.
///
/// The SQLite calls are fast (microseconds to a millisecond, with every page read through an
/// index) and run inline in the async methods, on the caller's task, without a hop to a
/// dedicated thread. This is a deliberate performance choice: a thread hop would cost more than
/// most queries. A task waiting for the writer lock blocks its thread for that short time.
public final class SQLiteStore: HeraldStore {
    private let pool: SQLiteConnectionPool
    /// Every committed write a user can see, for the live hub (see ``LiveChangeSource``).
    private let feed = ChangeFeed()
    /// The database file (or `:memory:`).
    public let path: String
    /// The migration versions applied when this store opened (empty when the schema was already current).
    public let appliedMigrations: [Int]

    /// Every migration of the SQLite store, oldest first.
    public static var migrations: [Migration] { Migration.all(.sqlite) }

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    /// `":memory:"` gives a private in-memory database served by a single connection.
    /// - Parameter readers: reader connections for concurrent reads (file databases only).
    public init(path: String, readers: Int = 4) throws {
        let pool = try SQLiteConnectionPool(path: path, readers: readers, feed: feed)
        self.pool = pool
        self.path = path
        self.appliedMigrations = try Self.migrate(pool)
    }

    /// Opens a database URL: `sqlite:./herald.db` (relative), `sqlite:///abs/path.db` (absolute)
    /// or `sqlite::memory:`. Anything else throws ``StoreError/Code/invalidDatabaseURL``.
    public static func open(url: String, readers: Int = 4) throws -> SQLiteStore {
        try SQLiteStore(path: path(fromURL: url), readers: readers)
    }

    /// The file path of a `sqlite:` database URL.
    public static func path(fromURL url: String) throws(StoreError) -> String {
        let usage = "expected sqlite:./herald.db, sqlite:///absolute/path.db or sqlite::memory:"
        guard url.hasPrefix("sqlite:") else {
            throw StoreError(code: .invalidDatabaseURL, message: "unsupported database URL scheme; \(usage)")
        }
        var rest = String(url.dropFirst("sqlite:".count))
        if rest == ":memory:" { return ":memory:" }
        if rest.hasPrefix("//") {
            rest.removeFirst(2)
            guard rest.hasPrefix("/") else {
                throw StoreError(code: .invalidDatabaseURL, message: "sqlite:// takes an absolute path; \(usage)")
            }
        }
        guard !rest.isEmpty, !rest.hasSuffix("/") else {
            throw StoreError(code: .invalidDatabaseURL, message: "missing database file; \(usage)")
        }
        return rest
    }

    // MARK: Migrations

    /// Applies pending migrations, each in its own transaction, and returns every version this
    /// store instance applied, at open or now: `[]` when the database was already current.
    /// `init` already migrates, so `herald migrate` is `try SQLiteStore.open(url: url).migrate()`.
    @discardableResult
    public func migrate() throws -> [Int] {
        try appliedMigrations + Self.migrate(pool)
    }

    /// The versions recorded in `schema_migrations`, ascending.
    public func schemaVersions() throws -> [Int] {
        try pool.read { db in
            try db.query("SELECT version FROM schema_migrations ORDER BY version") { row in row.int(0) }
        }
    }

    private static func migrate(_ pool: SQLiteConnectionPool) throws -> [Int] {
        let migrations = Migration.all(.sqlite)
        for (earlier, later) in zip(migrations, migrations.dropFirst()) {
            precondition(earlier.version < later.version, "migrations must be in ascending version order")
        }
        return try pool.withWriter { db in
            try db.executeUncached(Migration.bookkeeping(.sqlite))
            var applied: [Int] = []
            for migration in migrations {
                let didApply = try db.transaction(write: true) { () throws -> Bool in
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
    }

    // MARK: Access

    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try pool.write(body)
    }

    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// The query plan SQLite picks for `sql` (the `detail` column of `EXPLAIN QUERY PLAN`).
    func queryPlan(_ sql: SQL) throws -> [String] {
        try read { db in
            try db.query("EXPLAIN QUERY PLAN \(sql)") { row in row.text(3) }
        }
    }

    // MARK: Settings

    public func setting(_ key: String) async throws -> String? {
        try read { db in try AccountStatements.setting(key, db) }
    }

    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try write { db in try AccountStatements.setSettingIfAbsent(key, value: value, db) }
    }

    public func sharedProviderToken(
        keyID: String, candidate: SharedProviderToken, staleBefore: Date, rejected: Set<String>
    ) async throws -> SharedProviderToken {
        try write { db in
            try AccountStatements.sharedProviderToken(
                keyID: keyID, candidate: candidate, staleBefore: staleBefore, rejected: rejected, db)
        }
    }

    // MARK: API keys

    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try write { db in try AccountStatements.createAPIKey(key, db) }
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try read { db in try AccountStatements.apiKey(hash: hash, db) }
    }

    public func apiKeys() async throws -> [APIKeyRecord] {
        try read { db in try AccountStatements.apiKeys(db) }
    }

    public func revokeAPIKey(id: String, at: Date) async throws -> APIKeyRevocation {
        try write { db in try AccountStatements.revokeAPIKey(id: id, at: at, db) }
    }

    public func recordAPIKeyUse(id: String, at: Date) async throws {
        try write { db in try AccountStatements.recordAPIKeyUse(id: id, at: at, db) }
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> Preferences? {
        try read { db in try AccountStatements.storedPreferences(db, userID: userID) }
    }

    public func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        try write { db in
            var preferences = try AccountStatements.storedPreferences(db, userID: userID) ?? initial
            try update(&preferences)
            try AccountStatements.storePreferences(db, userID: userID, preferences, replacing: true)
            return preferences
        }
    }

    // MARK: Devices

    public func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device {
        try write { db in try AccountStatements.upsertDevice(userID: userID, registration, at: at, db) }
    }

    public func deleteDevice(userID: String, token: String) async throws -> Bool {
        try write { db in try AccountStatements.deleteDevice(userID: userID, token: token, db) }
    }

    public func devices(userID: String) async throws -> [Device] {
        try read { db in try AccountStatements.devices(userID: userID, db) }
    }

    // MARK: Analytics

    public func insertEvents(userID: String, _ events: [AnalyticsEvent], receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        try write { db in try AccountStatements.insertEvents(userID: userID, events, receivedAt: receivedAt, db) }
    }

    public func eventCount(userID: String) async throws -> Int {
        try read { db in try AccountStatements.eventCount(userID: userID, db) }
    }

    // MARK: App config

    public func appConfig() async throws -> AppConfigDocument? {
        try read { db in try AccountStatements.appConfig(db) }
    }

    public func setAppConfig(_ document: AppConfigDocument, at: Date) async throws {
        let text = try StoreJSON.encode(document)
        try write { db in try AccountStatements.setAppConfig(encoded: text, at: at, db) }
    }

    // MARK: Readiness

    public func ping() async throws {
        try read { db in try AccountStatements.ping(db) }
    }
}

/// This process is the only writer: every committed change comes from the writer connection's
/// transactions, through the store's ``ChangeFeed``.
extension SQLiteStore: LiveChangeSource {
    public func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws {
        feed.observe(handler)
    }

    public func stopWatchingChanges() {
        feed.observe(nil)
    }
}
