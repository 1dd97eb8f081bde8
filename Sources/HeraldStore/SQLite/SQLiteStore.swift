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
        let pool = try SQLiteConnectionPool(path: path, readers: readers)
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
        try read { db in
            try db.queryOne("SELECT value FROM settings WHERE key = \(key)") { row in row.text(0) }
        }
    }

    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try write { db in
            try db.execute("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING")
            return try db.queryOne("SELECT value FROM settings WHERE key = \(key)") { row in row.text(0) } ?? value
        }
    }

    // MARK: API keys

    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try write { db in
            try db.execute(
                """
                INSERT INTO api_keys (id, name, key_hash, created_at)
                VALUES (\(key.id), \(key.name), \(key.hash), \(key.createdAt))
                """)
        }
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try read { db in
            try db.queryOne("SELECT id, name, key_hash, created_at FROM api_keys WHERE key_hash = \(hash)") { row in
                APIKeyRecord(id: row.text(0), name: row.text(1), hash: row.text(2), createdAt: row.date(3))
            }
        }
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> Preferences? {
        try read { db in try Self.storedPreferences(db, userID: userID) }
    }

    public func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        try write { db in
            var preferences = try Self.storedPreferences(db, userID: userID) ?? initial
            try update(&preferences)
            let categories = try StoreJSON.encode(preferences.categories)
            let disabledTypes = try StoreJSON.encode(preferences.disabledTypes)
            let quietHours = try preferences.quietHours.map { hours throws(StoreError) in try StoreJSON.encode(hours) }
            try db.execute(
                """
                INSERT INTO preferences (user_id, global_enabled, os_permission_granted, categories, disabled_types, quiet_hours)
                VALUES (\(userID), \(preferences.globalEnabled), \(preferences.osPermissionGranted), \(categories),
                        \(disabledTypes), \(quietHours))
                ON CONFLICT (user_id) DO UPDATE SET
                    global_enabled = excluded.global_enabled,
                    os_permission_granted = excluded.os_permission_granted,
                    categories = excluded.categories,
                    disabled_types = excluded.disabled_types,
                    quiet_hours = excluded.quiet_hours
                """)
            return preferences
        }
    }

    private static func storedPreferences(_ db: SQLiteConnection, userID: String) throws -> Preferences? {
        try db.queryOne(
            """
            SELECT global_enabled, os_permission_granted, categories, disabled_types, quiet_hours
            FROM preferences WHERE user_id = \(userID)
            """
        ) { row throws(StoreError) in try preferences(row, from: 0) }
    }

    /// Preferences read from `global_enabled, os_permission_granted, categories, disabled_types,
    /// quiet_hours`, starting at column `first`.
    static func preferences(_ row: some StoreRow, from first: Int) throws(StoreError) -> Preferences {
        Preferences(
            globalEnabled: try row.bool(first),
            osPermissionGranted: try row.optionalBool(first + 1),
            categories: try row.json([String: Bool].self, first + 2),
            disabledTypes: try row.json([String].self, first + 3),
            quietHours: try row.optionalJSON(QuietHours.self, first + 4))
    }

    // MARK: Devices

    private static let deviceColumns: SQL = """
        token, user_id, provider, platform, environment, app_version, locale, time_zone, active, created_at, updated_at
        """

    private static func device(_ row: SQLiteRow) throws(StoreError) -> Device {
        Device(
            token: row.text(0), userId: row.text(1),
            provider: try row.enumValue(PushProvider.self, 2),
            platform: try row.enumValue(DevicePlatform.self, 3),
            environment: try row.enumValue(PushEnvironment.self, 4),
            appVersion: row.optionalText(5), locale: row.optionalText(6), timeZone: row.optionalText(7),
            active: row.bool(8), createdAt: row.date(9), updatedAt: row.date(10))
    }

    public func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device {
        let environment = registration.environment ?? .production
        return try write { db in
            // A token moving to another user counts as a new registration for that user.
            let device = try db.queryOne(
                """
                INSERT INTO devices (\(Self.deviceColumns))
                VALUES (\(registration.token), \(userID), \(registration.provider.rawValue),
                        \(registration.platform.rawValue), \(environment.rawValue), \(registration.appVersion),
                        \(registration.locale), \(registration.timeZone), 1, \(at), \(at))
                ON CONFLICT (token) DO UPDATE SET
                    created_at = CASE WHEN devices.user_id = excluded.user_id THEN devices.created_at
                                      ELSE excluded.created_at END,
                    user_id = excluded.user_id,
                    provider = excluded.provider,
                    platform = excluded.platform,
                    environment = excluded.environment,
                    app_version = excluded.app_version,
                    locale = excluded.locale,
                    time_zone = excluded.time_zone,
                    active = 1,
                    updated_at = excluded.updated_at
                RETURNING \(Self.deviceColumns)
                """, Self.device)
            guard let device else {
                throw StoreError(code: .invalidStoredValue, message: "device upsert returned no row")
            }
            return device
        }
    }

    public func deleteDevice(userID: String, token: String) async throws -> Bool {
        try write { db in
            try db.execute("DELETE FROM devices WHERE token = \(token) AND user_id = \(userID)")
            return db.changes > 0
        }
    }

    public func devices(userID: String) async throws -> [Device] {
        try read { db in
            try db.query(
                """
                SELECT \(Self.deviceColumns) FROM devices WHERE user_id = \(userID)
                ORDER BY updated_at DESC, created_at DESC, token
                """, Self.device)
        }
    }

    // MARK: Analytics

    public func insertEvents(userID: String, _ events: [AnalyticsEvent], receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        try write { db in
            for event in events {
                let properties = try event.properties.map { value throws(StoreError) in try StoreJSON.encode(value) }
                try db.execute(
                    """
                    INSERT INTO analytics_events (user_id, name, at, properties, received_at)
                    VALUES (\(userID), \(event.name), \(event.at), \(properties), \(receivedAt))
                    """)
            }
        }
    }

    public func eventCount(userID: String) async throws -> Int {
        try read { db in
            try db.queryOne("SELECT COUNT(*) FROM analytics_events WHERE user_id = \(userID)") { row in row.int(0) }
                ?? 0
        }
    }

    // MARK: App config

    public func appConfig() async throws -> AppConfigDocument? {
        try read { db in
            try db.queryOne("SELECT document FROM app_config WHERE id = 1") { row throws(StoreError) in
                try row.json(AppConfigDocument.self, 0)
            }
        }
    }

    public func setAppConfig(_ document: AppConfigDocument, at: Date) async throws {
        let text = try StoreJSON.encode(document)
        try write { db in
            try db.execute(
                """
                INSERT INTO app_config (id, document, updated_at) VALUES (1, \(text), \(at))
                ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """)
        }
    }

    // MARK: Readiness

    public func ping() async throws {
        _ = try read { db in try db.queryOne("SELECT 1") { row in row.int(0) } }
    }
}
