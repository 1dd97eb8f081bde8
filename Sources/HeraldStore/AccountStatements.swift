import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The statements of the per-user and per-server tables both stores run the same way: settings,
/// API keys, preferences, devices, analytics events and the app config. Each function runs
/// inside the caller's transaction or read.
enum AccountStatements {
    // MARK: Settings

    static func setting(_ key: String, _ db: some StoreConnection) throws(StoreError) -> String? {
        try db.queryOne("SELECT value FROM settings WHERE key = \(key)") { row throws(StoreError) in
            try row.text("value")
        }
    }

    /// Stores `value` unless `key` has one; answers the stored value. (Another PostgreSQL
    /// process inserting the same key at once makes this wait for its commit.)
    static func setSettingIfAbsent(_ key: String, value: String, _ db: some StoreConnection) throws(StoreError)
        -> String
    {
        try db.execute("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING")
        return try setting(key, db) ?? value
    }

    /// See ``HeraldStore/sharedProviderToken(keyID:candidate:staleBefore:rejected:)``. The
    /// token is a settings row (`apns_provider_token:<key id>` = `<issued at seconds> <token>`):
    /// inserted if absent, then read under a row lock, so on PostgreSQL a second server waits
    /// for the first one's choice.
    static func sharedProviderToken<DB: StoreConnection>(
        keyID: String, candidate: SharedProviderToken, staleBefore: Date, rejected: Set<String>, _ db: DB
    ) throws(StoreError) -> SharedProviderToken {
        let key = "apns_provider_token:" + keyID
        let issuedAt = Int64(candidate.issuedAt.timeIntervalSince1970)
        let proposed = "\(issuedAt) \(candidate.token)"
        try db.execute("INSERT INTO settings (key, value) VALUES (\(key), \(proposed)) ON CONFLICT (key) DO NOTHING")
        let stored = try db.queryOne("SELECT value FROM settings WHERE key = \(key) \(DB.rowLock)") {
            row throws(StoreError) in try row.text("value")
        }
        if let stored, let shared = SharedProviderToken(stored: stored),
            stored == proposed || (shared.issuedAt > staleBefore && !rejected.contains(shared.token))
        {
            return shared
        }
        try db.execute("UPDATE settings SET value = \(proposed) WHERE key = \(key)")
        return SharedProviderToken(token: candidate.token, issuedAt: Date(timeIntervalSince1970: Double(issuedAt)))
    }

    // MARK: API keys

    static func createAPIKey(_ key: APIKeyRecord, _ db: some StoreConnection) throws(StoreError) {
        try db.execute(
            """
            INSERT INTO api_keys (id, name, key_hash, created_at)
            VALUES (\(key.id), \(key.name), \(key.hash), \(key.createdAt))
            """)
    }

    private static let apiKeyColumns: SQL = "id, name, key_hash, created_at, last_used_at"

    private static func apiKeyRecord(_ row: some StoreRow) throws(StoreError) -> APIKeyRecord {
        try APIKeyRecord(
            id: row.text("id"), name: row.text("name"), hash: row.text("key_hash"), createdAt: row.date("created_at"),
            lastUsedAt: row.optionalDate("last_used_at"))
    }

    static func apiKey(hash: String, _ db: some StoreConnection) throws(StoreError) -> APIKeyRecord? {
        try db.queryOne(
            "SELECT \(apiKeyColumns) FROM api_keys WHERE key_hash = \(hash) AND revoked_at IS NULL"
        ) { row throws(StoreError) in try apiKeyRecord(row) }
    }

    static func apiKeys(_ db: some StoreConnection) throws(StoreError) -> [APIKeyRecord] {
        try db.query(
            "SELECT \(apiKeyColumns) FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id"
        ) { row throws(StoreError) in try apiKeyRecord(row) }
    }

    static func revokeAPIKey(id: String, at: Date, _ db: some StoreConnection) throws(StoreError)
        -> APIKeyRevocation
    {
        if try db.change("UPDATE api_keys SET revoked_at = \(at) WHERE id = \(id) AND revoked_at IS NULL") == 1 {
            // Its console sessions end with it, in the same transaction.
            try db.execute("DELETE FROM console_sessions WHERE api_key_id = \(id)")
            return .revoked
        }
        let stored = try db.queryOne("SELECT revoked_at FROM api_keys WHERE id = \(id)") {
            row throws(StoreError) in try row.optionalDate("revoked_at")
        }
        guard case .some(.some(let revokedAt)) = stored else { return .notFound }
        return .alreadyRevoked(revokedAt)
    }

    // MARK: Console sessions

    static func createConsoleSession(_ session: ConsoleSessionRecord, _ db: some StoreConnection) throws(StoreError) {
        try db.execute(
            """
            INSERT INTO console_sessions (token_hash, api_key_id, created_at, last_seen_at)
            VALUES (\(session.hash), \(session.apiKeyID), \(session.createdAt), \(session.lastSeenAt))
            """)
    }

    /// The session with this hash and its key, seen now; a session past either expiry, or whose
    /// key was revoked, is deleted and not answered.
    static func consoleSession(
        hash: String, now: Date, idleBefore: Date, createdBefore: Date, _ db: some StoreConnection
    ) throws(StoreError) -> (session: ConsoleSessionRecord, key: APIKeyRecord)? {
        let found = try db.queryOne(
            """
            SELECT s.created_at AS session_created_at, s.last_seen_at AS session_last_seen_at,
                k.id AS id, k.name AS name, k.key_hash AS key_hash, k.created_at AS created_at,
                k.last_used_at AS last_used_at, k.revoked_at AS revoked_at
            FROM console_sessions s JOIN api_keys k ON k.id = s.api_key_id
            WHERE s.token_hash = \(hash)
            """
        ) { row throws(StoreError) in
            let key = try apiKeyRecord(row)
            return (
                record: ConsoleSessionRecord(
                    hash: hash, apiKeyID: key.id, createdAt: try row.date("session_created_at"),
                    lastSeenAt: try row.date("session_last_seen_at")),
                key: key, revoked: try row.optionalDate("revoked_at") != nil
            )
        }
        guard let found else { return nil }
        if found.revoked || found.record.lastSeenAt < idleBefore || found.record.createdAt < createdBefore {
            try db.execute("DELETE FROM console_sessions WHERE token_hash = \(hash)")
            return nil
        }
        try db.execute("UPDATE console_sessions SET last_seen_at = \(now) WHERE token_hash = \(hash)")
        var seen = found.record
        seen.lastSeenAt = now
        return (seen, found.key)
    }

    static func deleteConsoleSession(hash: String, _ db: some StoreConnection) throws(StoreError) -> Bool {
        try db.change("DELETE FROM console_sessions WHERE token_hash = \(hash)") == 1
    }

    /// Deletes at most ``InboxStatements/pruneBatch`` sessions idle since `idleBefore` or created
    /// before `createdBefore`.
    static func pruneConsoleSessionsBatch(idleBefore: Date, createdBefore: Date) -> SQL {
        """
        DELETE FROM console_sessions WHERE token_hash IN (
            SELECT token_hash FROM console_sessions
            WHERE last_seen_at < \(idleBefore) OR created_at < \(createdBefore) LIMIT \(InboxStatements.pruneBatch))
        """
    }

    static func recordAPIKeyUse(id: String, at: Date, _ db: some StoreConnection) throws(StoreError) {
        try db.execute(
            """
            UPDATE api_keys SET last_used_at = \(at)
            WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(at))
            """)
    }

    // MARK: Preferences

    /// The columns ``preferences(_:)`` reads.
    static let preferenceColumns: SQL =
        """
        global_enabled, os_permission_granted, categories, disabled_types, quiet_hours, snoozed_until, digest,
        muted_sources, time_zone
        """

    /// Preferences read from a row with ``preferenceColumns``.
    static func preferences(_ row: some StoreRow) throws(StoreError) -> Preferences {
        try Preferences(
            globalEnabled: row.bool("global_enabled"),
            osPermissionGranted: row.optionalBool("os_permission_granted"),
            categories: row.json([String: Bool].self, "categories"),
            disabledTypes: row.json([String].self, "disabled_types"),
            quietHours: row.optionalJSON(QuietHours.self, "quiet_hours"),
            snoozedUntil: row.optionalDate("snoozed_until"),
            digest: row.optionalJSON(DigestSettings.self, "digest"),
            mutedSources: row.json([String].self, "muted_sources"),
            timeZone: row.optionalText("time_zone"))
    }

    /// `userID`'s stored preferences; with `locking`, the row stays locked until the transaction
    /// ends where other writers run at once (the dialect's row lock).
    static func storedPreferences<DB: StoreConnection>(_ db: DB, userID: String, locking: Bool = false)
        throws(StoreError) -> Preferences?
    {
        try db.queryOne(
            """
            SELECT \(preferenceColumns) FROM preferences WHERE user_id = \(userID) \(locking ? DB.rowLock : "")
            """
        ) { row throws(StoreError) in try preferences(row) }
    }

    /// Writes `preferences` for `userID`: replacing a stored row, or only where there is none.
    static func storePreferences(
        _ db: some StoreConnection, userID: String, _ preferences: Preferences, replacing: Bool
    ) throws(StoreError) {
        let categories = try StoreJSON.encode(preferences.categories)
        let disabledTypes = try StoreJSON.encode(preferences.disabledTypes)
        let quietHours = try preferences.quietHours.map { hours throws(StoreError) in try StoreJSON.encode(hours) }
        let digest = try preferences.digest.map { digest throws(StoreError) in try StoreJSON.encode(digest) }
        let mutedSources = try StoreJSON.encode(preferences.mutedSources)
        let onConflict: SQL =
            replacing
            ? """
            DO UPDATE SET
                global_enabled = excluded.global_enabled,
                os_permission_granted = excluded.os_permission_granted,
                categories = excluded.categories,
                disabled_types = excluded.disabled_types,
                quiet_hours = excluded.quiet_hours,
                snoozed_until = excluded.snoozed_until,
                digest = excluded.digest,
                muted_sources = excluded.muted_sources,
                time_zone = excluded.time_zone
            """ : "DO NOTHING"
        try db.execute(
            """
            INSERT INTO preferences (user_id, \(preferenceColumns))
            VALUES (\(userID), \(preferences.globalEnabled), \(preferences.osPermissionGranted), \(categories),
                    \(disabledTypes), \(quietHours), \(preferences.snoozedUntil), \(digest), \(mutedSources),
                    \(preferences.timeZone))
            ON CONFLICT (user_id) \(onConflict)
            """)
    }

    /// The time zone of each user in the JSON array `users`: their preferences' `timeZone`, else
    /// their newest device's (active ones first), else UTC. Two reads, by key.
    static func timeZones<DB: StoreConnection>(_ users: String, _ db: DB) throws -> [String: TimeZone] {
        let preferred = try db.query(
            """
            SELECT user_id, time_zone FROM preferences
            WHERE user_id IN (\(DB.jsonTextElements(users))) AND time_zone IS NOT NULL
            """
        ) { row throws(StoreError) in try (row.text("user_id"), row.text("time_zone")) }
        let devices = try db.query(
            """
            SELECT user_id, time_zone FROM devices
            WHERE user_id IN (\(DB.jsonTextElements(users))) AND time_zone IS NOT NULL
            ORDER BY active DESC, updated_at DESC
            """
        ) { row throws(StoreError) in try (row.text("user_id"), row.text("time_zone")) }
        let preferredZones = Dictionary(preferred, uniquingKeysWith: { first, _ in first })
        let deviceZones = Dictionary(devices, uniquingKeysWith: { first, _ in first })
        var zones: [String: TimeZone] = [:]
        for user in Set(preferredZones.keys).union(deviceZones.keys) {
            zones[user] = LocalTime.zone(preferred: preferredZones[user], fallback: deviceZones[user])
        }
        return zones
    }

    // MARK: Devices

    private static let deviceColumns: SQL = """
        token, user_id, provider, platform, environment, app_version, locale, time_zone, active, created_at, updated_at,
        app_id
        """

    private static func deviceRecord(_ row: some StoreRow) throws(StoreError) -> Device {
        try Device(
            token: row.text("token"), userId: row.text("user_id"),
            provider: row.enumValue(PushProvider.self, "provider"),
            platform: row.enumValue(DevicePlatform.self, "platform"),
            environment: row.enumValue(PushEnvironment.self, "environment"),
            appVersion: row.optionalText("app_version"), locale: row.optionalText("locale"),
            timeZone: row.optionalText("time_zone"), active: row.bool("active"), createdAt: row.date("created_at"),
            updatedAt: row.date("updated_at"), appId: row.text("app_id"))
    }

    /// Registers or refreshes a device; a token moving to another user counts as a new
    /// registration for that user.
    static func upsertDevice(
        userID: String, _ registration: DeviceRegistration, at: Date, _ db: some StoreConnection
    ) throws(StoreError) -> Device {
        let environment = registration.environment ?? .production
        let device = try db.queryOne(
            """
            INSERT INTO devices (\(deviceColumns))
            VALUES (\(registration.token), \(userID), \(registration.provider.rawValue),
                    \(registration.platform.rawValue), \(environment.rawValue), \(registration.appVersion),
                    \(registration.locale), \(registration.timeZone), 1, \(at), \(at),
                    \(registration.appId ?? DeviceRegistration.defaultAppID))
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
                app_id = excluded.app_id,
                active = 1,
                updated_at = excluded.updated_at
            RETURNING \(deviceColumns)
            """
        ) { row throws(StoreError) in try deviceRecord(row) }
        guard let device else {
            throw StoreError(code: .invalidStoredValue, message: "device upsert returned no row")
        }
        return device
    }

    static func deleteDevice(userID: String, token: String, _ db: some StoreConnection) throws(StoreError) -> Bool {
        try db.change("DELETE FROM devices WHERE token = \(token) AND user_id = \(userID)") > 0
    }

    static func devices(userID: String, _ db: some StoreConnection) throws(StoreError) -> [Device] {
        try db.query(
            """
            SELECT \(deviceColumns) FROM devices WHERE user_id = \(userID)
            ORDER BY updated_at DESC, created_at DESC, token
            """
        ) { row throws(StoreError) in try deviceRecord(row) }
    }

    // MARK: Analytics

    static func insertEvents(
        userID: String, _ events: [AnalyticsEvent], receivedAt: Date, _ db: some StoreConnection
    ) throws(StoreError) {
        for event in events {
            let properties = try event.properties.map { value throws(StoreError) in try StoreJSON.encode(value) }
            try db.execute(
                """
                INSERT INTO analytics_events (user_id, name, at, properties, received_at)
                VALUES (\(userID), \(event.name), \(event.at), \(properties), \(receivedAt))
                """)
        }
    }

    static func eventCount(userID: String, _ db: some StoreConnection) throws(StoreError) -> Int {
        try db.queryOne("SELECT COUNT(*) AS events FROM analytics_events WHERE user_id = \(userID)") {
            row throws(StoreError) in try row.int("events")
        } ?? 0
    }

    // MARK: App config

    static func appConfig(_ db: some StoreConnection) throws(StoreError) -> AppConfigRecord {
        try db.queryOne("SELECT document, version, updated_at FROM app_config WHERE id = 1") {
            row throws(StoreError) in
            try AppConfigRecord(
                document: row.json(AppConfigDocument.self, "document"), version: row.int("version"),
                updatedAt: row.date("updated_at"))
        } ?? AppConfigRecord(document: nil, version: 0, updatedAt: nil)
    }

    /// Stores the app config `document`, already encoded (outside the transaction) as JSON text,
    /// as the next version; with `ifVersion`, only over that version (0: only when none is
    /// stored). `nil`, storing nothing, when another version stands.
    static func setAppConfig(encoded document: String, at: Date, ifVersion: Int?, _ db: some StoreConnection)
        throws(StoreError) -> AppConfigRecord?
    {
        let changed: Int
        switch ifVersion {
        case nil:
            changed = try db.change(
                """
                INSERT INTO app_config (id, document, updated_at, version) VALUES (1, \(document), \(at), 1)
                ON CONFLICT (id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at,
                    version = app_config.version + 1
                """)
        case 0:
            changed = try db.change(
                """
                INSERT INTO app_config (id, document, updated_at, version) VALUES (1, \(document), \(at), 1)
                ON CONFLICT (id) DO NOTHING
                """)
        case let version?:
            changed = try db.change(
                """
                UPDATE app_config SET document = \(document), updated_at = \(at), version = version + 1
                WHERE id = 1 AND version = \(version)
                """)
        }
        return changed == 1 ? try appConfig(db) : nil
    }

    /// One trivial query: the database answers.
    static func ping(_ db: some StoreConnection) throws(StoreError) {
        _ = try db.queryOne("SELECT 1 AS answer") { row throws(StoreError) in try row.int("answer") }

    }
}
