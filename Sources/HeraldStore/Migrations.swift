import FoundationEssentials

/// The SQL that differs between databases, kept in one place so the migrations and the
/// statements can be shared by the SQLite store and a PostgreSQL store.
package struct SQLDialect: Sendable, Equatable {
    enum Name: Sendable { case sqlite, postgres }
    let name: Name

    static let sqlite = SQLDialect(name: .sqlite)
    static let postgres = SQLDialect(name: .postgres)

    /// The `index`th parameter (1-based).
    func placeholder(_ index: Int) -> String {
        switch name {
        case .sqlite: "?"
        case .postgres: "$\(index)"
        }
    }

    /// A 64-bit integer column (PostgreSQL's INTEGER is 32-bit).
    var bigint: String {
        switch name {
        case .sqlite: "INTEGER"
        case .postgres: "BIGINT"
        }
    }

    /// A monotonic 64-bit key that is never reused, even after the newest row is deleted.
    var sequenceKey: String {
        switch name {
        case .sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT"
        case .postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        }
    }

    /// The columns of the inbox index (migration 2). SQLite's covers the list page; a
    /// PostgreSQL btree entry must fit in about a third of a page (2.7 kB), which `list_json`
    /// can exceed, so PostgreSQL indexes the order only and reads the rows from the table.
    var inboxIndexColumns: String {
        switch name {
        case .sqlite: "user_id, seq, list_json, read_at, seen_at, deleted_at, hidden"
        case .postgres: "user_id, seq"
        }
    }

    /// Starts a write transaction that takes the write lock at once, so read-then-write
    /// sequences inside it cannot race another writer.
    var beginWrite: String {
        switch name {
        case .sqlite: "BEGIN IMMEDIATE"
        case .postgres: "BEGIN ISOLATION LEVEL SERIALIZABLE"
        }
    }
}

/// One numbered schema change. Migrations are applied in `version` order, each in its own
/// transaction, and recorded in `schema_migrations`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    /// One statement per element.
    public var sql: [String]

    public init(version: Int, name: String, sql: [String]) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

extension Migration {
    /// Applies the pending migrations of `db`'s dialect, each in its own transaction, while no
    /// other process migrates the same schema; answers the versions applied (`[]` when the
    /// database was already current).
    static func apply<DB: StoreConnection>(on db: DB) throws -> [Int] {
        let migrations = all(DB.dialect)
        for (earlier, later) in zip(migrations, migrations.dropFirst()) {
            precondition(earlier.version < later.version, "migrations must be in ascending version order")
        }
        return try db.withMigrationLock {
            try db.executeUncached(bookkeeping(DB.dialect))
            var applied: [Int] = []
            for migration in migrations {
                let didApply = try db.transaction { () throws -> Bool in
                    let recorded = try db.queryOne(
                        "SELECT 1 AS recorded FROM schema_migrations WHERE version = \(migration.version)"
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

    /// The versions recorded in `schema_migrations`, ascending.
    static func recorded(on db: some StoreConnection) throws -> [Int] {
        try db.query("SELECT version FROM schema_migrations ORDER BY version") { row throws(StoreError) in
            try row.int("version")
        }
    }

    /// Creates the table that records applied migrations (run before any migration).
    static func bookkeeping(_ d: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version \(d.bigint) PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at \(d.bigint) NOT NULL
        )
        """
    }

    /// Every migration of the store, oldest first. Times are INTEGER milliseconds since 1970,
    /// booleans INTEGER 0/1, JSON documents TEXT.
    static func all(_ d: SQLDialect) -> [Migration] {
        [
            Migration(
                version: 1, name: "initial schema",
                sql: [
                    """
                    CREATE TABLE settings (
                        key TEXT PRIMARY KEY,
                        value TEXT NOT NULL
                    )
                    """,
                    """
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        key_hash TEXT NOT NULL UNIQUE,
                        created_at \(d.bigint) NOT NULL
                    )
                    """,
                    // `seq` orders the inbox; `hidden` marks `admin.*` rows no app user sees.
                    // `list_json` is the row's list item as JSON up to its read and seen times
                    // (JSONWriter.notificationFields), written once at publish: a list page is
                    // then written without decoding rows. A change to the item's wire shape must
                    // rewrite it (a migration that re-renders from the other columns).
                    """
                    CREATE TABLE notifications (
                        seq \(d.sequenceKey),
                        id TEXT NOT NULL UNIQUE,
                        user_id TEXT NOT NULL,
                        type TEXT NOT NULL,
                        category TEXT,
                        hidden INTEGER NOT NULL,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        data TEXT NOT NULL,
                        deep_link TEXT,
                        detail TEXT,
                        has_detail INTEGER NOT NULL,
                        push TEXT,
                        created_at \(d.bigint) NOT NULL,
                        list_json TEXT NOT NULL,
                        read_at \(d.bigint),
                        seen_at \(d.bigint),
                        deleted_at \(d.bigint)
                    )
                    """,
                    // One inbox page reads only the page: newest first within a user (and category).
                    """
                    CREATE INDEX notifications_inbox ON notifications (user_id, seq)
                    WHERE deleted_at IS NULL AND hidden = 0
                    """,
                    """
                    CREATE INDEX notifications_inbox_category ON notifications (user_id, category, seq)
                    WHERE deleted_at IS NULL AND hidden = 0
                    """,
                    // Mark-all-seen touches only the unseen rows.
                    """
                    CREATE INDEX notifications_unseen ON notifications (user_id)
                    WHERE seen_at IS NULL AND deleted_at IS NULL AND hidden = 0
                    """,
                    // Unread and unseen counts, kept in the same transactions as the rows.
                    """
                    CREATE TABLE user_counters (
                        user_id TEXT PRIMARY KEY,
                        unread \(d.bigint) NOT NULL,
                        unseen \(d.bigint) NOT NULL
                    )
                    """,
                    """
                    CREATE TABLE stream_events (
                        seq \(d.sequenceKey),
                        user_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        created_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX stream_events_user ON stream_events (user_id, seq)",
                    "CREATE INDEX stream_events_created ON stream_events (created_at)",
                    """
                    CREATE TABLE idempotency_keys (
                        api_key_id TEXT NOT NULL,
                        idem_key TEXT NOT NULL,
                        request_hash TEXT NOT NULL,
                        response TEXT NOT NULL,
                        created_at \(d.bigint) NOT NULL,
                        PRIMARY KEY (api_key_id, idem_key)
                    )
                    """,
                    """
                    CREATE TABLE preferences (
                        user_id TEXT PRIMARY KEY,
                        global_enabled INTEGER NOT NULL,
                        os_permission_granted INTEGER,
                        categories TEXT NOT NULL,
                        disabled_types TEXT NOT NULL,
                        quiet_hours TEXT
                    )
                    """,
                    """
                    CREATE TABLE devices (
                        token TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL,
                        provider TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        app_version TEXT,
                        locale TEXT,
                        time_zone TEXT,
                        active INTEGER NOT NULL,
                        created_at \(d.bigint) NOT NULL,
                        updated_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX devices_user ON devices (user_id, updated_at)",
                    """
                    CREATE TABLE analytics_events (
                        seq \(d.sequenceKey),
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        at \(d.bigint) NOT NULL,
                        properties TEXT,
                        received_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX analytics_events_user ON analytics_events (user_id)",
                    """
                    CREATE TABLE app_config (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        document TEXT NOT NULL,
                        updated_at \(d.bigint) NOT NULL
                    )
                    """,
                ]
            ),
            Migration(
                version: 2, name: "covering inbox index, idempotency pruning index",
                sql: [
                    // A list page is one range scan of the user's index entries instead of one
                    // table lookup per row (a user's rows are spread over the whole table).
                    // `deleted_at` and `hidden` are included so the planner sees it as covering.
                    "DROP INDEX notifications_inbox",
                    """
                    CREATE INDEX notifications_inbox ON notifications (
                        \(d.inboxIndexColumns)
                    ) WHERE deleted_at IS NULL AND hidden = 0
                    """,
                    // Expired Idempotency-Key claims are pruned hourly.
                    "CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)",
                ]
            ),
            Migration(
                version: 3, name: "push delivery outbox",
                sql: [
                    // One row per (notification, device), written with the inbox row. `id` is the
                    // APNs `apns-id`, kept across attempts. `device_token`, `provider`, `platform`
                    // and `environment` are NULL on the one `no_device` row of a user without an
                    // active device. `status`: queued, sending (claimed), sent, failed, skipped,
                    // expired, deferred; `reason` says why a row was skipped, failed or retried.
                    // `next_attempt_at` is when the row is next due: the send time of a queued or
                    // deferred row, the lease expiry of a sending one (an unfinished claim becomes
                    // due again), NULL once final. `expires_at` is the end of the push's TTL.
                    """
                    CREATE TABLE deliveries (
                        id TEXT PRIMARY KEY,
                        notification_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        device_token TEXT,
                        provider TEXT,
                        platform TEXT,
                        environment TEXT,
                        status TEXT NOT NULL,
                        reason TEXT,
                        attempts INTEGER NOT NULL,
                        next_attempt_at \(d.bigint),
                        claim_token TEXT,
                        expires_at \(d.bigint),
                        provider_message_id TEXT,
                        provider_ticket_id TEXT,
                        created_at \(d.bigint) NOT NULL,
                        updated_at \(d.bigint) NOT NULL
                    )
                    """,
                    // A claim is one range scan over due rows only, oldest due first, reading
                    // nothing but the index (final rows are not in it).
                    """
                    CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id, expires_at)
                    WHERE next_attempt_at IS NOT NULL
                    """,
                    "CREATE INDEX deliveries_notification ON deliveries (notification_id)",
                ]
            ),
            Migration(
                version: 4, name: "broadcasts",
                sql: [
                    // One row per broadcast. `audience`: all or users; `template` the notification
                    // fields as JSON. `status`: queued, running (claimed until `lease_expires_at`),
                    // completed, failed. The fan-out walks the audience in user id order in chunks;
                    // `after_user_id` is the last user a chunk reached ('' before the first), and it
                    // moves in the same transaction as that chunk's notification rows, so a resumed
                    // fan-out never reaches a user twice. `total` is NULL for `all` until the
                    // fan-out starts. `claim_token` names the runner holding it. `seq` orders them
                    // (claims oldest first, lists newest first).
                    """
                    CREATE TABLE broadcasts (
                        seq \(d.sequenceKey),
                        id TEXT NOT NULL UNIQUE,
                        api_key_id TEXT NOT NULL,
                        audience TEXT NOT NULL,
                        template TEXT NOT NULL,
                        status TEXT NOT NULL,
                        total \(d.bigint),
                        processed \(d.bigint) NOT NULL,
                        after_user_id TEXT NOT NULL,
                        claim_token TEXT,
                        lease_expires_at \(d.bigint),
                        failure_reason TEXT,
                        created_at \(d.bigint) NOT NULL,
                        started_at \(d.bigint),
                        completed_at \(d.bigint),
                        updated_at \(d.bigint) NOT NULL
                    )
                    """,
                    // A claim reads only the unfinished broadcasts, oldest first.
                    """
                    CREATE INDEX broadcasts_unfinished ON broadcasts (seq)
                    WHERE status IN ('queued', 'running')
                    """,
                    // The listed audience of a broadcast, stored with it (a repeated id once);
                    // chunks read it in user id order through the primary key.
                    """
                    CREATE TABLE broadcast_users (
                        broadcast_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        PRIMARY KEY (broadcast_id, user_id)
                    )
                    """,
                ]
            ),
            Migration(
                version: 5, name: "expo push receipts",
                sql: [
                    // An Expo ticket (`provider_ticket_id`) whose receipt is still to be fetched has
                    // `receipt_due_at`: when to ask for it, or the lease expiry of a poller's claim
                    // (`receipt_claim_token`), so an unfinished claim comes due again. NULL once
                    // the receipt is recorded.
                    "ALTER TABLE deliveries ADD COLUMN receipt_due_at \(d.bigint)",
                    "ALTER TABLE deliveries ADD COLUMN receipt_claim_token TEXT",
                    // A receipt claim is one range scan over the tickets waiting for a receipt only.
                    """
                    CREATE INDEX deliveries_receipt_due ON deliveries (receipt_due_at, id)
                    WHERE receipt_due_at IS NOT NULL
                    """,
                ]
            ),
            Migration(
                version: 6, name: "api key revocation and last use",
                sql: [
                    // When a key was last used, written at most once a minute per key and server.
                    "ALTER TABLE api_keys ADD COLUMN last_used_at \(d.bigint)",
                    // A revoked key stays for the record (broadcasts and idempotency claims name
                    // its id) but is never found by its hash again.
                    "ALTER TABLE api_keys ADD COLUMN revoked_at \(d.bigint)",
                ]
            ),
            Migration(
                version: 7, name: "console sessions",
                sql: [
                    // A console sign-in: only the SHA-256 of the cookie's secret is stored, so a
                    // copy of the database signs nobody in. `last_seen_at` ends an idle session,
                    // `created_at` an old one; revoking the key deletes its sessions.
                    """
                    CREATE TABLE console_sessions (
                        token_hash TEXT PRIMARY KEY,
                        api_key_id TEXT NOT NULL REFERENCES api_keys (id),
                        created_at \(d.bigint) NOT NULL,
                        last_seen_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX console_sessions_api_key ON console_sessions (api_key_id)",
                    "CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen_at)",
                ]
            ),
            Migration(
                version: 8, name: "console reads: app-config versions, a user's notifications, deliveries by time",
                sql: [
                    // The app config's ETag: every write adds one, so a write that names the
                    // version it read (If-Match) cannot overwrite one it never saw.
                    "ALTER TABLE app_config ADD COLUMN version INTEGER NOT NULL DEFAULT 1",
                    // A user's notifications, deleted and hidden ones too (the console's Users
                    // and Messages pages); the inbox indexes leave those out.
                    "CREATE INDEX notifications_user ON notifications (user_id, seq)",
                    // Deliveries of the last hour or day (the console's Overview); `created_at`
                    // never changes, so this costs one index entry per delivery.
                    "CREATE INDEX deliveries_created ON deliveries (created_at)",
                ]
            ),
            Migration(
                version: 9, name: "the provider's status of a delivery's last attempt",
                sql: [
                    // The HTTP status of the provider's answer to the last attempt (the console's
                    // timeline shows it beside the reason); NULL before one, or when none came.
                    "ALTER TABLE deliveries ADD COLUMN provider_status INTEGER"
                ]
            ),
            Migration(
                version: 10, name: "app ids: a device's app, copied onto its deliveries",
                sql: [
                    // Several apps on one Herald: each device belongs to one app (the push
                    // credentials it is sent with); rows written before are the default app's.
                    "ALTER TABLE devices ADD COLUMN app_id TEXT NOT NULL DEFAULT 'default'",
                    // NULL on the `no_device` row and on rows written before: the default app.
                    "ALTER TABLE deliveries ADD COLUMN app_id TEXT",
                ]
            ),
            Migration(
                version: 11, name: "live activities",
                sql: [
                    // An ActivityKit push token: `kind` pushToStart (starts an activity of
                    // `attributes_type` on one device of `user_id`) or update (one activity's,
                    // `activity_id`; one per device the activity runs on). `active` = 0 once APNs
                    // called it dead. The token is the key, as a device's is. `app_id` is the app
                    // whose credentials push to it, as a device's.
                    """
                    CREATE TABLE live_activity_tokens (
                        token TEXT PRIMARY KEY,
                        kind TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        attributes_type TEXT NOT NULL,
                        activity_id TEXT,
                        environment TEXT NOT NULL,
                        active INTEGER NOT NULL,
                        created_at \(d.bigint) NOT NULL,
                        updated_at \(d.bigint) NOT NULL,
                        app_id TEXT NOT NULL
                    )
                    """,
                    // A start reads a user's push-to-start tokens of one type; an update, one
                    // activity's tokens; the publisher reads a user's.
                    "CREATE INDEX live_activity_tokens_user ON live_activity_tokens (user_id, attributes_type)",
                    """
                    CREATE INDEX live_activity_tokens_activity ON live_activity_tokens (activity_id)
                    WHERE activity_id IS NOT NULL
                    """,
                    // An activity Herald knows (started through it, or its token registered): whose it
                    // is, so an update names only the activity; `ended_at` once an end was pushed.
                    """
                    CREATE TABLE live_activities (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL,
                        attributes_type TEXT NOT NULL,
                        created_at \(d.bigint) NOT NULL,
                        updated_at \(d.bigint) NOT NULL,
                        ended_at \(d.bigint)
                    )
                    """,
                    // One push to an activity (start, update or end): what its delivery rows send,
                    // as the notification row is for an alert. `content` is the `aps` as JSON.
                    """
                    CREATE TABLE live_activity_pushes (
                        id TEXT PRIMARY KEY,
                        activity_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        event TEXT NOT NULL,
                        content TEXT NOT NULL,
                        created_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX live_activity_pushes_activity ON live_activity_pushes (activity_id, created_at)",
                    // A delivery row is a notification's push or a Live Activity push (its
                    // `notification_id` is then the push's id, its `device_token` the activity token).
                    "ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'notification'",
                ]
            ),
            Migration(
                version: 12, name: "snooze",
                sql: [
                    // Until when a user's pushes wait (issue 16's snooze); NULL: not snoozed.
                    "ALTER TABLE preferences ADD COLUMN snoozed_until \(d.bigint)"
                ]
            ),
            Migration(
                version: 13, name: "opens",
                sql: [
                    // When the recipient first opened the notification from its push; NULL: never.
                    "ALTER TABLE notifications ADD COLUMN opened_at \(d.bigint)"
                ]
            ),
            Migration(
                version: 14, name: "attention: digest, muted sources and time zone in preferences",
                sql: [
                    // DigestSettings as JSON; NULL: never set (off).
                    "ALTER TABLE preferences ADD COLUMN digest TEXT",
                    // The muted source ids as a JSON array.
                    "ALTER TABLE preferences ADD COLUMN muted_sources TEXT NOT NULL DEFAULT '[]'",
                    // An IANA zone; NULL: the newest device's, else UTC.
                    "ALTER TABLE preferences ADD COLUMN time_zone TEXT",
                ]
            ),
            Migration(version: 15, name: "webhooks", sql: webhookTables(d)),
            Migration(
                version: 16, name: "messages, scheduled notifications, sources, digests",
                sql: [
                    // A publish or a broadcast as one thing (a broadcast's id is its message's).
                    // `send_at` / `deliver_local_time`: its schedule, if any; `cancelled_at` once a
                    // publisher cancelled what had not gone out.
                    """
                    CREATE TABLE messages (
                        seq \(d.sequenceKey),
                        id TEXT NOT NULL UNIQUE,
                        kind TEXT NOT NULL,
                        api_key_id TEXT,
                        type TEXT NOT NULL,
                        title TEXT NOT NULL,
                        category TEXT,
                        source_id TEXT,
                        source_name TEXT,
                        send_at \(d.bigint),
                        deliver_local_time TEXT,
                        created_at \(d.bigint) NOT NULL,
                        cancelled_at \(d.bigint),
                        completed_at \(d.bigint)
                    )
                    """,
                    "ALTER TABLE notifications ADD COLUMN message_id TEXT",
                    "ALTER TABLE notifications ADD COLUMN source_id TEXT",
                    "ALTER TABLE notifications ADD COLUMN source_name TEXT",
                    // A funnel counts one message's rows; the sources list groups one user's.
                    "CREATE INDEX notifications_message ON notifications (message_id) WHERE message_id IS NOT NULL",
                    """
                    CREATE INDEX notifications_user_source ON notifications (user_id, source_id, seq)
                    WHERE source_id IS NOT NULL
                    """,
                    // A notification waiting for its time: the whole notification as JSON, written
                    // to the inbox (with its pushes) only when `due_at` comes.
                    """
                    CREATE TABLE scheduled_notifications (
                        id TEXT PRIMARY KEY,
                        message_id TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        due_at \(d.bigint) NOT NULL,
                        notification TEXT NOT NULL,
                        created_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX scheduled_notifications_due ON scheduled_notifications (due_at, id)",
                    "CREATE INDEX scheduled_notifications_message ON scheduled_notifications (message_id)",
                    // Frequency caps count a user's recent pushes.
                    "CREATE INDEX deliveries_user_created ON deliveries (user_id, created_at)",
                    // A held (`digested`) row's summary once one carried it; NULL while held.
                    "ALTER TABLE deliveries ADD COLUMN digest_id TEXT",
                    """
                    CREATE INDEX deliveries_held ON deliveries (user_id)
                    WHERE status = 'digested' AND digest_id IS NULL
                    """,
                    // When each user's next digest summary is due (a row only while one is pending).
                    """
                    CREATE TABLE digest_schedule (
                        user_id TEXT PRIMARY KEY,
                        due_at \(d.bigint) NOT NULL
                    )
                    """,
                    "CREATE INDEX digest_schedule_due ON digest_schedule (due_at)",
                    // One summary push: what its delivery rows (kind `digest`) send.
                    """
                    CREATE TABLE digests (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        created_at \(d.bigint) NOT NULL
                    )
                    """,
                ]
            ),
            Migration(
                version: 17, name: "open messages",
                sql: [
                    // The completion sweep reads only the messages still open.
                    "CREATE INDEX messages_open ON messages (created_at, id) WHERE completed_at IS NULL"
                ]
            ),
        ]
    }
}
