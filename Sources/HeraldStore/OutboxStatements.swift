import FoundationEssentials
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
        var timeZone: String?
        var updatedAt: Int64
    }

    /// Writes the delivery rows of every notification that asks for push; see
    /// ``HeraldStore/publish(_:message:rules:idempotency:)``. Hidden (`admin.*`) rows never push.
    /// A push held for a digest (`digested`) waits for its user's digest run, which is scheduled here.
    static func writeOutbox<DB: StoreConnection>(for notifications: [NewNotification], rules: PushRules, _ db: DB)
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
        var capUsage = CapUsage()
        // A cap counts what committed publishes wrote: publishes to one user wait for each other
        // from the count to the commit (locked in user-id order, as the counters, so none deadlock).
        let capped = Set(pushed.filter { rules.cap(for: $0.category) != nil }.map(\.userID))
        for userID in capped.sorted() { try db.holdLock("frequency cap " + userID) }

        var random = SystemRandomNumberGenerator()
        for notification in pushed {
            let expires = notification.push?.ttlSeconds.map { notification.createdAt.addingTimeInterval(Double($0)) }
            let row = { (device: OutboxDevice?, status: DeliveryStatus, reason: String?, due: Date?) throws in
                try NewDeliveryRow(
                    id: TimeOrderedID.make(using: &random), notificationID: notification.id,
                    userID: notification.userID,
                    kind: DeliveryKind.notification,
                    target: device.map { ($0.token, $0.provider, $0.platform, $0.environment) }, appID: device?.appID,
                    status: status, reason: reason, due: due, expiresAt: expires, createdAt: notification.createdAt
                ).insert(db)
            }
            guard let userDevices = devices[notification.userID] else {
                try row(nil, .skipped, DeliverySkipReason.noDevice, nil)
                continue
            }
            let stored = preferences[notification.userID] ?? Preferences()
            let cap = rules.cap(for: notification.category)
            var overCap = false
            if let cap {
                overCap = try capUsage.used(cap, by: notification.userID, at: notification.createdAt, db) >= cap.max
            }
            let newest = userDevices.max { $0.updatedAt < $1.updatedAt }
            let circumstances = PushCircumstances(
                interruptionLevel: notification.push?.interruptionLevel?.rawValue, sourceID: notification.source?.id,
                digestEligible: notification.push?.digest == true
                    || notification.category.map(rules.digestCategories.contains) == true,
                overCap: overCap, timeZone: LocalTime.zone(preferred: stored.timeZone, fallback: newest?.timeZone))
            let decision = PushPolicy.decide(
                preferences: stored, type: notification.type, category: notification.category,
                catalog: rules.catalog, now: notification.createdAt, circumstances: circumstances)
            let state = rowState(decision, now: notification.createdAt)
            for device in userDevices { try row(device, state.status, state.reason, state.due) }
            switch decision {
            case .send, .defer:
                if let cap { capUsage.count(cap, by: notification.userID) }
            case .digest(let at):
                try DigestStatements.schedule(userID: notification.userID, at: at, db)
            case .skip:
                break
            }
        }
    }

    /// The delivery rows of digest summary `digestID` (kind `digest`): one per active device of
    /// the user, queued, or as the push policy says under their switches, snooze and quiet hours
    /// (a summary has no category, type or source of its own); one `no_device` row without a device.
    static func writeSummaryRows<DB: StoreConnection>(
        digestID: String, userID: String, catalog: Catalog, now: Date, _ db: DB
    ) throws {
        let users = DeliveryStatements.jsonArray([userID])
        let devices = try activeDevices(users, db)[userID] ?? []
        let stored = try storedPreferences(users, db)[userID] ?? Preferences()
        var random = SystemRandomNumberGenerator()
        let row = { (device: OutboxDevice?, status: DeliveryStatus, reason: String?, due: Date?) throws in
            try NewDeliveryRow(
                id: TimeOrderedID.make(using: &random), notificationID: digestID, userID: userID,
                kind: DeliveryKind.digest,
                target: device.map { ($0.token, $0.provider, $0.platform, $0.environment) }, appID: device?.appID,
                status: status, reason: reason, due: due, expiresAt: nil, createdAt: now
            ).insert(db)
        }
        guard !devices.isEmpty else { return try row(nil, .skipped, DeliverySkipReason.noDevice, nil) }
        let decision = PushPolicy.decide(
            preferences: stored, type: DigestStatements.summaryType, category: nil, catalog: catalog, now: now)
        // No digest holds a summary: the policy has no digest circumstance for it.
        let state = rowState(decision, now: now)
        for device in devices { try row(device, state.status, state.reason, state.due) }
    }

    /// The row the push policy's `decision` writes for each device: queued (due `now`), skipped
    /// with its reason, deferred until the window or snooze ends (reason `snoozed` for a snooze),
    /// or held for a digest (not due: the digest run carries it).
    private static func rowState(_ decision: PushDecision, now: Date)
        -> (status: DeliveryStatus, reason: String?, due: Date?)
    {
        switch decision {
        case .send: (.queued, nil, now)
        case .skip(let reason): (.skipped, reason.rawValue, nil)
        case .defer(let until, let snoozed): (.deferred, snoozed ? DeliveryDeferReason.snoozed : nil, until)
        case .digest: (.digested, nil, nil)
        }
    }

    /// How many pushes of a capped category each user had in the cap's period: read once per
    /// (user, category) in a publish, then counted on as the publish adds pushes.
    private struct CapUsage {
        private var used: [String: Int] = [:]

        private static func key(_ cap: FrequencyCap, _ userID: String) -> String { userID + "\u{0}" + cap.category }

        /// The user's pushes of the cap's category in the period ending `at`: the notifications of
        /// that category that got a push row not skipped nor held for a digest.
        mutating func used(_ cap: FrequencyCap, by userID: String, at: Date, _ db: some StoreConnection) throws -> Int {
            let key = Self.key(cap, userID)
            if let known = used[key] { return known }
            let since = at.addingTimeInterval(-Double(cap.periodSeconds))
            let count =
                try db.queryOne(
                    """
                    SELECT COUNT(DISTINCT d.notification_id) AS n
                    FROM deliveries d JOIN notifications n ON n.id = d.notification_id
                    WHERE d.user_id = \(userID) AND d.created_at > \(since) AND d.kind = \(DeliveryKind.notification)
                      AND d.status NOT IN (\(DeliveryStatus.skipped.rawValue), \(DeliveryStatus.digested.rawValue))
                      AND n.category = \(cap.category)
                    """
                ) { row throws(StoreError) in try row.int("n") } ?? 0
            used[key] = count
            return count
        }

        /// One more push of the cap's category for the user.
        mutating func count(_ cap: FrequencyCap, by userID: String) {
            used[Self.key(cap, userID), default: 0] += 1
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
                    environment: row.text("environment"), appID: row.text("app_id"),
                    timeZone: row.optionalText("time_zone"), updatedAt: row.int64("updated_at"))
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
        SELECT user_id, token, provider, platform, environment, app_id, time_zone, updated_at FROM devices
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
