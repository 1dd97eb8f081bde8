import Foundation
import HeraldModel

/// The shared store: one PostgreSQL database that several `herald` processes can use at once.
///
/// It holds ONE connection, used from its own serial queue (see ``PostgresConnectionQueue``),
/// so a process runs one statement at a time and no libpq call ever blocks a cooperative
/// thread. The inbox, outbox, delivery and broadcast statements are the ones SQLite runs
/// (``InboxStatements`` and its neighbours); what differs is locking, since other processes
/// write at once: read-modify-writes lock their rows, claims skip rows another claimer holds.
public final class PostgresStore: HeraldStore {
    private let connection: PostgresConnectionQueue
    /// The migration versions applied when this store opened (empty when the schema was already current).
    public let appliedMigrations: [Int]

    /// Every migration of the PostgreSQL store, oldest first.
    public static var migrations: [Migration] { Migration.all(.postgres) }

    /// The first key of the session advisory lock held while migrating (the second is the
    /// schema's hash), so processes starting at once migrate one after the other.
    static let migrationLockKey: Int32 = 0x4852_4C44  // "HRLD"

    /// Connects to a `postgres://` or `postgresql://` URL (libpq's URI syntax, e.g.
    /// `postgres://herald@127.0.0.1:5432/herald`) and applies pending migrations. Anything
    /// else throws ``StoreError/Code/invalidDatabaseURL``.
    public static func open(url: String) throws -> PostgresStore {
        guard isPostgresURL(url) else {
            throw StoreError(
                code: .invalidDatabaseURL,
                message: "unsupported database URL scheme; expected postgres://user@host:port/database")
        }
        return try PostgresStore(connection: PostgresConnection(url: url))
    }

    /// Whether `url` names a PostgreSQL database.
    public static func isPostgresURL(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    private init(connection: PostgresConnection) throws {
        let queue = PostgresConnectionQueue(connection)
        self.connection = queue
        appliedMigrations = try queue.runBlocking { db in try Self.migrate(db) }
    }

    // MARK: Migrations

    /// Applies pending migrations, each in its own transaction, and returns every version this
    /// store instance applied, at open or now: `[]` when the database was already current.
    @discardableResult
    public func migrate() throws -> [Int] {
        try appliedMigrations + connection.runBlocking { db in try Self.migrate(db) }
    }

    /// The versions recorded in `schema_migrations`, ascending.
    public func schemaVersions() throws -> [Int] {
        try connection.runBlocking { db in
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

    /// Runs `body` on the connection in one transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await connection.run { db in try db.transaction { try body(db) } }
    }

    /// Runs `body` on the connection, each statement in its own implicit transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await connection.run(body)
    }

    // MARK: Settings

    public func setting(_ key: String) async throws -> String? {
        try await read { db in
            try db.queryOne("SELECT value FROM settings WHERE key = \(key)") { row in row.text(0) }
        }
    }

    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try await write { db in
            // Another process inserting the same key at once makes this wait for its commit.
            try db.execute("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING")
            return try db.queryOne("SELECT value FROM settings WHERE key = \(key)") { row in row.text(0) } ?? value
        }
    }

    // MARK: API keys

    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try await write { db in
            try db.execute(
                """
                INSERT INTO api_keys (id, name, key_hash, created_at)
                VALUES (\(key.id), \(key.name), \(key.hash), \(key.createdAt))
                """)
        }
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await read { db in
            try db.queryOne("SELECT id, name, key_hash, created_at FROM api_keys WHERE key_hash = \(hash)") {
                row throws(StoreError) in
                APIKeyRecord(id: row.text(0), name: row.text(1), hash: row.text(2), createdAt: try row.date(3))
            }
        }
    }

    // MARK: Preferences

    public func preferences(userID: String) async throws -> Preferences? {
        try await read { db in try Self.storedPreferences(db, userID: userID, forUpdate: false) }
    }

    public func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        try await withoutActuallyEscaping(update) { update in
            try await write { db in
                // The row is created first (undone if `update` throws) so that the locking read
                // below serializes read-modify-write cycles of other processes on it.
                try Self.storePreferences(db, userID: userID, initial, replacing: false)
                guard var preferences = try Self.storedPreferences(db, userID: userID, forUpdate: true) else {
                    throw StoreError(code: .invalidStoredValue, message: "preferences row missing after insert")
                }
                try update(&preferences)
                try Self.storePreferences(db, userID: userID, preferences, replacing: true)
                return preferences
            }
        }
    }

    private static func storePreferences(
        _ db: PostgresConnection, userID: String, _ preferences: Preferences, replacing: Bool
    ) throws {
        let categories = try StoreJSON.encode(preferences.categories)
        let disabledTypes = try StoreJSON.encode(preferences.disabledTypes)
        let quietHours = try preferences.quietHours.map { hours throws(StoreError) in try StoreJSON.encode(hours) }
        let onConflict: SQL =
            replacing
            ? """
            DO UPDATE SET
                global_enabled = excluded.global_enabled,
                os_permission_granted = excluded.os_permission_granted,
                categories = excluded.categories,
                disabled_types = excluded.disabled_types,
                quiet_hours = excluded.quiet_hours
            """ : "DO NOTHING"
        try db.execute(
            """
            INSERT INTO preferences (user_id, global_enabled, os_permission_granted, categories, disabled_types, quiet_hours)
            VALUES (\(userID), \(preferences.globalEnabled), \(preferences.osPermissionGranted), \(categories),
                    \(disabledTypes), \(quietHours))
            ON CONFLICT (user_id) \(onConflict)
            """)
    }

    private static func storedPreferences(_ db: PostgresConnection, userID: String, forUpdate: Bool) throws
        -> Preferences?
    {
        try db.queryOne(
            """
            SELECT global_enabled, os_permission_granted, categories, disabled_types, quiet_hours
            FROM preferences WHERE user_id = \(userID) \(unsafeSQL: forUpdate ? "FOR UPDATE" : "")
            """
        ) { row throws(StoreError) in
            Preferences(
                globalEnabled: try row.bool(0),
                osPermissionGranted: try row.optionalBool(1),
                categories: try row.json([String: Bool].self, 2),
                disabledTypes: try row.json([String].self, 3),
                quietHours: try row.optionalJSON(QuietHours.self, 4))
        }
    }

    // MARK: Devices

    private static let deviceColumns: SQL = """
        token, user_id, provider, platform, environment, app_version, locale, time_zone, active, created_at, updated_at
        """

    private static func device(_ row: PostgresRow) throws(StoreError) -> Device {
        Device(
            token: row.text(0), userId: row.text(1),
            provider: try row.enumValue(PushProvider.self, 2),
            platform: try row.enumValue(DevicePlatform.self, 3),
            environment: try row.enumValue(PushEnvironment.self, 4),
            appVersion: row.optionalText(5), locale: row.optionalText(6), timeZone: row.optionalText(7),
            active: try row.bool(8), createdAt: try row.date(9), updatedAt: try row.date(10))
    }

    public func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device {
        let environment = registration.environment ?? .production
        return try await write { db in
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
        try await write { db in
            try db.run("DELETE FROM devices WHERE token = \(token) AND user_id = \(userID)").changes > 0
        }
    }

    public func devices(userID: String) async throws -> [Device] {
        try await read { db in
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
        try await write { db in
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
        try await read { db in
            try db.queryOne("SELECT COUNT(*) FROM analytics_events WHERE user_id = \(userID)") {
                row throws(StoreError) in try row.int(0)
            } ?? 0
        }
    }

    // MARK: App config

    public func appConfig() async throws -> AppConfigDocument? {
        try await read { db in
            try db.queryOne("SELECT document FROM app_config WHERE id = 1") { row throws(StoreError) in
                try row.json(AppConfigDocument.self, 0)
            }
        }
    }

    public func setAppConfig(_ document: AppConfigDocument, at: Date) async throws {
        let text = try StoreJSON.encode(document)
        try await write { db in
            try db.execute(
                """
                INSERT INTO app_config (id, document, updated_at) VALUES (1, \(text), \(at))
                ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """)
        }
    }

    // MARK: Readiness

    public func ping() async throws {
        _ = try await read { db in try db.queryOne("SELECT 1") { row throws(StoreError) in try row.int(0) } }
    }
}
