import Foundation
import HeraldModel
import HeraldServerModel

/// The push delivery rows a publish writes, inside the publish transaction, on either store.
///
/// Whatever the batch size, the recipients' active devices and stored preferences are read
/// in two statements (the user ids bound as one JSON array), then each row is written by one
/// cached prepared insert. On SQLite a single `INSERT ... SELECT FROM json_each` of all rows
/// measured slower: building the JSON and reading each column back out of it cost more than
/// reusing the prepared statement.
enum OutboxStatements {
    /// A recipient's active device, as the outbox needs it.
    private struct OutboxDevice {
        var token: String
        var provider: String
        var platform: String
        var environment: String
        var appID: String
    }

    /// Writes the delivery rows of every notification that asks for push; see
    /// ``HeraldStore/publish(_:catalog:idempotency:)``. Hidden (`admin.*`) rows never push.
    static func writeOutbox<DB: StoreConnection>(for notifications: [NewNotification], catalog: Catalog, _ db: DB)
        throws
    {
        let pushed = notifications.filter { $0.push?.send == true && !$0.hidden }
        guard !pushed.isEmpty else { return }
        var userIDs: [String] = []
        var seen: Set<String> = []
        for notification in pushed where seen.insert(notification.userID).inserted {
            userIDs.append(notification.userID)
        }
        let users = DeliveryStatements.jsonArray(userIDs)
        let devices = try activeDevices(users, db)
        let preferences = try storedPreferences(users, db)

        var random = SystemRandomNumberGenerator()
        for notification in pushed {
            let expires = notification.push?.ttlSeconds.map { notification.createdAt.addingTimeInterval(Double($0)) }
            let row = { (device: OutboxDevice?, status: DeliveryStatus, reason: String?, due: Date?) throws in
                try NewDeliveryRow(
                    id: DeliveryID.make(using: &random), notificationID: notification.id, userID: notification.userID,
                    kind: DeliveryKind.notification,
                    target: device.map { ($0.token, $0.provider, $0.platform, $0.environment) }, appID: device?.appID,
                    status: status, reason: reason, due: due, expiresAt: expires, createdAt: notification.createdAt
                ).insert(db)
            }
            guard let userDevices = devices[notification.userID] else {
                try row(nil, .skipped, DeliverySkipReason.noDevice, nil)
                continue
            }
            let decision = PushPolicy.decide(
                preferences: preferences[notification.userID] ?? Preferences(), type: notification.type,
                category: notification.category, catalog: catalog, now: notification.createdAt,
                interruptionLevel: notification.push?.interruptionLevel?.rawValue)
            for device in userDevices {
                switch decision {
                case .send: try row(device, .queued, nil, notification.createdAt)
                case .skip(let reason): try row(device, .skipped, reason.rawValue, nil)
                case .defer(let until, let snoozed):
                    try row(device, .deferred, snoozed ? DeliveryDeferReason.snoozed : nil, until)
                }
            }
        }
    }

    /// The active devices of the users in the JSON array `users`, by user.
    private static func activeDevices<DB: StoreConnection>(_ users: String, _ db: DB) throws
        -> [String: [OutboxDevice]]
    {
        let rows = try db.query(activeDevicesQuery(users, DB.self)) { row throws(StoreError) in
            try (
                user: row.text("user_id"),
                device: OutboxDevice(
                    token: row.text("token"), provider: row.text("provider"), platform: row.text("platform"),
                    environment: row.text("environment"), appID: row.text("app_id"))
            )
        }
        return Dictionary(grouping: rows, by: \.user).mapValues { $0.map(\.device) }
    }

    /// The stored preferences of the users in the JSON array `users` (a user with none gets the defaults).
    private static func storedPreferences<DB: StoreConnection>(_ users: String, _ db: DB) throws
        -> [String: Preferences]
    {
        let rows = try db.query(preferencesQuery(users, DB.self)) { row throws(StoreError) in
            try (user: row.text("user_id"), preferences: AccountStatements.preferences(row))
        }
        return Dictionary(rows.map { ($0.user, $0.preferences) }, uniquingKeysWith: { first, _ in first })
    }

    /// Served by `devices_user`, one index search per user.
    static func activeDevicesQuery<DB: StoreConnection>(_ users: String, _: DB.Type) -> SQL {
        """
        SELECT user_id, token, provider, platform, environment, app_id FROM devices
        WHERE user_id IN (\(DB.jsonTextElements(users))) AND active = 1
        """
    }

    /// Served by the primary key, one search per user.
    static func preferencesQuery<DB: StoreConnection>(_ users: String, _: DB.Type) -> SQL {
        """
        SELECT user_id, \(AccountStatements.preferenceColumns)
        FROM preferences WHERE user_id IN (\(DB.jsonTextElements(users)))
        """
    }

    /// Every delivery row of a notification (or of one Live Activity push), for its publisher.
    static func deliveries(notificationID: String, _ db: some StoreConnection) throws -> [DeliveryRecord] {
        try deliveries(matching: "d.notification_id = \(notificationID)", db)
    }

    /// Every delivery row of every push of Live Activity `activityID`, oldest first, in one read.
    static func deliveries(liveActivityID: String, _ db: some StoreConnection) throws -> [DeliveryRecord] {
        try deliveries(
            matching: """
                d.notification_id IN (SELECT id FROM live_activity_pushes WHERE activity_id = \(liveActivityID))
                """, db)
    }

    /// The delivery rows that `condition` (on `d`, the deliveries) selects.
    private static func deliveries(matching condition: SQL, _ db: some StoreConnection) throws -> [DeliveryRecord] {
        try db.query(
            """
            SELECT d.id, d.notification_id, d.user_id, d.device_token, d.provider, d.platform, d.environment,
                   d.status, d.reason, d.attempts, d.next_attempt_at, d.expires_at, d.provider_message_id,
                   d.created_at, d.updated_at, d.provider_ticket_id, d.provider_status,
                   CASE WHEN d.kind = \(DeliveryKind.liveActivity) THEN lt.active ELSE dv.active END AS device_active,
                   n.opened_at AS opened_at
            FROM deliveries d LEFT JOIN devices dv ON dv.token = d.device_token AND dv.user_id = d.user_id
            LEFT JOIN live_activity_tokens lt ON lt.token = d.device_token AND lt.user_id = d.user_id
            LEFT JOIN notifications n ON n.id = d.notification_id
            WHERE \(condition)
            ORDER BY d.created_at, d.provider, d.platform, d.device_token
            """
        ) { row throws(StoreError) in
            try DeliveryRecord(
                id: row.text("id"), notificationID: row.text("notification_id"), userID: row.text("user_id"),
                deviceToken: row.optionalText("device_token"),
                provider: row.optionalEnumValue(PushProvider.self, "provider"),
                platform: row.optionalEnumValue(DevicePlatform.self, "platform"),
                environment: row.optionalEnumValue(PushEnvironment.self, "environment"),
                status: row.enumValue(DeliveryStatus.self, "status"), reason: row.optionalText("reason"),
                attempts: row.int("attempts"), nextAttemptAt: row.optionalDate("next_attempt_at"),
                expiresAt: row.optionalDate("expires_at"), providerMessageID: row.optionalText("provider_message_id"),
                createdAt: row.date("created_at"), updatedAt: row.date("updated_at"),
                providerTicketID: row.optionalText("provider_ticket_id"),
                deviceActive: row.optionalInt64("device_active").map { $0 != 0 },
                providerStatus: row.optionalInt64("provider_status").map { Int($0) },
                openedAt: row.optionalDate("opened_at"))

        }
    }
}

/// One delivery row as a publish or a Live Activity push writes it: the one INSERT of the outbox
/// (a skipped row records its `delivery.skipped` webhook event with it).
struct NewDeliveryRow {
    /// The APNs `apns-id`, kept across attempts.
    var id: String
    /// The notification's id, or the Live Activity push's.
    var notificationID: String
    var userID: String
    /// ``DeliveryKind``.
    var kind: String
    /// Token, provider, platform and environment; nil on the one `no_device` row.
    var target: (token: String, provider: String, platform: String, environment: String)?
    var appID: String?
    var status: DeliveryStatus
    var reason: String?
    /// When the row is first due; nil for a final one.
    var due: Date?
    var expiresAt: Date?
    var createdAt: Date

    init(
        id: String, notificationID: String, userID: String, kind: String,
        target: (token: String, provider: String, platform: String, environment: String)? = nil, appID: String? = nil,
        status: DeliveryStatus, reason: String?, due: Date? = nil, expiresAt: Date?, createdAt: Date
    ) {
        self.id = id
        self.notificationID = notificationID
        self.userID = userID
        self.kind = kind
        self.target = target
        self.appID = appID
        self.status = status
        self.reason = reason
        self.due = due
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    func insert(_ db: some StoreConnection) throws {
        try db.execute(
            """
            INSERT INTO deliveries (id, notification_id, user_id, device_token, provider, platform, environment,
                                    status, reason, attempts, next_attempt_at, expires_at, created_at, updated_at,
                                    kind, app_id)
            VALUES (\(id), \(notificationID), \(userID), \(target?.token), \(target?.provider), \(target?.platform),
                    \(target?.environment), \(status.rawValue), \(reason), 0, \(due), \(expiresAt), \(createdAt),
                    \(createdAt), \(kind), \(appID))
            """)
        if status == .skipped {
            try WebhookStatements.emit(.deliverySkipped, data: { eventData.json }, at: createdAt, db)
        }
    }

    /// The row as its webhook event tells of it.
    private var eventData: DeliveryEventData {
        DeliveryEventData(
            id: id, notificationID: notificationID, userID: userID, kind: kind, token: target?.token,
            provider: target?.provider, platform: target?.platform, appID: appID, status: status, reason: reason,
            providerStatus: nil, attempts: 0)
    }
}
