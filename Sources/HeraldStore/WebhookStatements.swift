import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// What one write transaction has read of the webhook subscriptions: each event type's
/// subscription ids, read at the transaction's first event (one query) and forgotten when the
/// next transaction begins. A transaction that records no event reads nothing; one that records
/// a thousand reads once.
package struct WebhookSubscriptionCache {
    fileprivate var byType: [WebhookEventType: [String]]?

    package init() {}
}

/// Webhook subscriptions and their outbox, as both stores run them, inside the caller's
/// transaction: the events (``emit(_:data:at:_:)``, called by the statements whose change they
/// tell of), the worker's claims and outcomes, the publisher's reads.
enum WebhookStatements {
    // MARK: Events

    /// The subscriptions listening to `type`, from the transaction's cache.
    static func subscribers(_ type: WebhookEventType, _ db: some StoreConnection) throws -> [String] {
        if let byType = db.webhookSubscriptions.byType { return byType[type] ?? [] }
        let rows = try db.query("SELECT webhook_id, type FROM webhook_events") { row throws(StoreError) in
            try (id: row.text("webhook_id"), type: row.optionalEnumValue(WebhookEventType.self, "type"))
        }
        var byType: [WebhookEventType: [String]] = [:]
        for row in rows { if let type = row.type { byType[type, default: []].append(row.id) } }
        db.webhookSubscriptions.byType = byType
        return byType[type] ?? []
    }

    /// Records an event of `type` with `data` (a JSON object) at `at` for every subscription
    /// listening to it, in the caller's transaction: it commits with the change it tells of, or
    /// not at all. Answers the event's id (one for every subscription: receivers dedupe by it),
    /// nil when none listens. With no subscription it costs one cached lookup.
    ///
    /// `data` is built only when a subscription listens.
    @discardableResult
    static func emit(_ type: WebhookEventType, data: () throws -> String, at: Date, _ db: some StoreConnection)
        throws -> String?
    {
        let subscribers = try subscribers(type, db)
        guard !subscribers.isEmpty else { return nil }
        var random = SystemRandomNumberGenerator()
        let eventID = "evt_" + TimeOrderedID.make(using: &random, now: at)
        let payload = try data()
        precondition(payload.hasPrefix("{"), "webhook event data must be a JSON object")
        let body = JSONWriter.text(capacity: 128 + payload.utf8.count) { writer in
            writer.raw("{\"id\":")
            writer.string(eventID)
            writer.raw(",\"type\":")
            writer.string(type.rawValue)
            writer.raw(",\"createdAt\":")
            writer.date(at)
            writer.raw(",\"data\":")
            writer.raw(payload)
            writer.raw("}")
        }
        for webhookID in subscribers {
            // From the subscription's row, so one deleted since the cache was read gets nothing.
            try db.execute(
                """
                INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, body, status, attempts, attempt_log,
                                                next_attempt_at, created_at, updated_at)
                SELECT \(TimeOrderedID.make(using: &random, now: at)), id, \(eventID), \(type.rawValue), \(body),
                       \(WebhookDeliveryStatus.pending.rawValue), 0, '[]', \(at), \(at), \(at)
                FROM webhooks WHERE id = \(webhookID)
                """)
        }
        return eventID
    }

    /// ``emit(_:data:at:_:)`` with data already built.
    @discardableResult
    static func emit(_ type: WebhookEventType, data: String, at: Date, _ db: some StoreConnection) throws -> String? {
        try emit(type, data: { data }, at: at, db)
    }

    /// The event of a delivery row that just ended (or was written) with `status`: sent, failed or
    /// expired, skipped; nothing for a row still waiting or in flight (whatever else it waits for).
    static func eventType(of status: DeliveryStatus) -> WebhookEventType? {
        switch status {
        case .sent: .deliverySent
        case .failed, .expired: .deliveryFailed
        case .skipped: .deliverySkipped
        default: nil
        }
    }

    /// Records the events of the delivery rows `ids` as they stand now (see
    /// ``eventType(of:)``): rows are read back only when a subscription listens to a delivery event.
    static func emitDeliveries<DB: StoreConnection>(_ ids: [String], at: Date, _ db: DB) throws {
        guard !ids.isEmpty else { return }
        let types: [WebhookEventType] = [.deliverySent, .deliveryFailed, .deliverySkipped]
        guard try types.contains(where: { try !subscribers($0, db).isEmpty }) else { return }
        let rows = try db.query(
            """
            SELECT id, notification_id, user_id, kind, device_token, provider, platform, app_id, status, reason,
                   provider_status, attempts
            FROM deliveries WHERE id IN (\(DB.jsonTextElements(DeliveryStatements.jsonArray(ids))))
            """
        ) { row throws(StoreError) in
            try DeliveryEventData(
                id: row.text("id"), notificationID: row.text("notification_id"), userID: row.text("user_id"),
                kind: row.text("kind"), token: row.optionalText("device_token"),
                provider: row.optionalText("provider"), platform: row.optionalText("platform"),
                appID: row.optionalText("app_id"), status: row.enumValue(DeliveryStatus.self, "status"),
                reason: row.optionalText("reason"),
                providerStatus: row.optionalInt64("provider_status").map { Int($0) },
                attempts: row.int("attempts"))
        }
        let order = Dictionary(
            ids.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for row in rows.sorted(by: { order[$0.id, default: 0] < order[$1.id, default: 0] }) {
            guard let type = eventType(of: row.status) else { continue }
            try emit(type, data: row.json, at: at, db)
        }
    }

    /// Records `device.pruned` for the device `token` a provider called dead on delivery
    /// `deliveryID`, as the device row stands now.
    static func emitDevicePruned(
        token: String, deliveryID: String, reason: String, at: Date, _ db: some StoreConnection
    ) throws {
        guard try !subscribers(.devicePruned, db).isEmpty else { return }
        let device = try db.queryOne(
            "SELECT user_id, provider, platform, app_id FROM devices WHERE token = \(token)"
        ) { row throws(StoreError) in
            try (
                userID: row.text("user_id"), provider: row.text("provider"), platform: row.text("platform"),
                appID: row.optionalText("app_id")
            )
        }
        guard let device else { return }
        try emit(
            .devicePruned,
            data: JSONWriter.text { writer in
                writer.raw("{\"deviceToken\":")
                writer.string(DeviceTokenMask.masked(token))
                writer.raw(",\"userId\":")
                writer.string(device.userID)
                writer.raw(",\"provider\":")
                writer.string(device.provider)
                writer.raw(",\"platform\":")
                writer.string(device.platform)
                writer.raw(",\"appId\":")
                writer.string(device.appID ?? DeviceRegistration.defaultAppID)
                writer.raw(",\"reason\":")
                writer.string(reason)
                writer.raw(",\"deliveryId\":")
                writer.string(deliveryID)
                writer.raw("}")
            }, at: at, db)
    }

    /// Records `notification.read` or `notification.opened` for `userID`'s notification.
    static func emitNotification(
        _ type: WebhookEventType, userID: String, notification: InboxNotification, at: Date,
        _ db: some StoreConnection
    ) throws {
        try emit(
            type,
            data: {
                JSONWriter.text { writer in
                    writer.raw("{\"id\":")
                    writer.string(notification.id)
                    writer.raw(",\"userId\":")
                    writer.string(userID)
                    writer.raw(",\"type\":")
                    writer.string(notification.type)
                    writer.raw(type == .notificationOpened ? ",\"openedAt\":" : ",\"readAt\":")
                    writer.date(at)
                    writer.raw("}")
                }
            }, at: at, db)
    }

    // MARK: Subscriptions

    static let columns: SQL = "id, url, events, secret, created_at"

    static func record(_ row: some StoreRow) throws(StoreError) -> WebhookRecord {
        try WebhookRecord(
            id: row.text("id"), url: row.text("url"), events: row.json([WebhookEventType].self, "events"),
            secret: row.text("secret"), createdAt: row.date("created_at"))
    }

    static func create(_ webhook: WebhookRecord, maxCount: Int?, _ db: some StoreConnection) throws -> WebhookCreation {
        if let maxCount {
            // Held to the end of the transaction, so two creations count one at a time.
            try db.holdLock("webhook subscriptions")
            let count =
                try db.queryOne("SELECT COUNT(*) AS total FROM webhooks") { row throws(StoreError) in
                    try row.int("total")
                } ?? 0
            if count >= maxCount { return .limitReached(count: count) }
        }
        try db.execute(
            """
            INSERT INTO webhooks (id, url, events, secret, created_at)
            VALUES (\(webhook.id), \(webhook.url), \(try StoreJSON.encode(webhook.events)), \(webhook.secret),
                    \(webhook.createdAt))
            """)
        for type in webhook.events {
            try db.execute("INSERT INTO webhook_events (webhook_id, type) VALUES (\(webhook.id), \(type.rawValue))")
        }
        return .created(webhook)
    }

    static func all(_ db: some StoreConnection) throws -> [WebhookRecord] {
        try db.query("SELECT \(columns) FROM webhooks ORDER BY created_at, id", record)
    }

    static func one(id: String, _ db: some StoreConnection) throws -> WebhookRecord? {
        try db.queryOne("SELECT \(columns) FROM webhooks WHERE id = \(id)", record)
    }

    static func delete(id: String, _ db: some StoreConnection) throws -> Bool {
        try db.execute("DELETE FROM webhook_deliveries WHERE webhook_id = \(id)")
        try db.execute("DELETE FROM webhook_events WHERE webhook_id = \(id)")
        return try db.change("DELETE FROM webhooks WHERE id = \(id)") > 0
    }

    // MARK: Deliveries

    /// How an attempt is kept in a delivery's `attempt_log` (a JSON array, oldest first).
    private struct StoredAttempt: Codable {
        var attempt: Int
        /// Milliseconds since 1970, as every stored time.
        var at: Int64
        var durationMs: Int
        var httpStatus: Int?
        var error: String?
    }

    static func page(webhookID: String, beforeSeq: Int64?, limit: Int, _ db: some StoreConnection) throws
        -> WebhookDeliveryPage?
    {
        guard try one(id: webhookID, db) != nil else { return nil }
        let before: SQL = beforeSeq.map { "AND seq < \($0)" } ?? ""
        var rows = try db.query(
            """
            SELECT seq, id, webhook_id, event_id, type, body, status, next_attempt_at, created_at, updated_at,
                   attempt_log
            FROM webhook_deliveries WHERE webhook_id = \(webhookID) \(before)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """
        ) { row throws(StoreError) in
            let attempts = try row.json([StoredAttempt].self, "attempt_log").map { stored in
                WebhookAttempt(
                    attempt: stored.attempt, at: StoreTime.date(stored.at), durationMilliseconds: stored.durationMs,
                    httpStatus: stored.httpStatus, error: stored.error)
            }
            return try (
                seq: row.int64("seq"),
                record: WebhookDeliveryRecord(
                    id: row.text("id"), webhookID: row.text("webhook_id"), eventID: row.text("event_id"),
                    type: row.enumValue(WebhookEventType.self, "type"), body: row.text("body"),
                    status: row.enumValue(WebhookDeliveryStatus.self, "status"),
                    nextAttemptAt: row.optionalDate("next_attempt_at"), createdAt: row.date("created_at"),
                    updatedAt: row.date("updated_at"), attempts: attempts)
            )
        }
        let hasMore = rows.count > limit
        if hasMore { rows.removeLast() }
        return WebhookDeliveryPage(items: rows.map(\.record), nextBeforeSeq: hasMore ? rows.last?.seq : nil)
    }

    /// The open (pending or sending) delivery of each subscription that comes first, by position.
    /// Served by `webhook_deliveries_open`, one search per subscription.
    static let heads: SQL = """
        SELECT (SELECT d.seq FROM webhook_deliveries d
                WHERE d.webhook_id = w.id AND d.next_attempt_at IS NOT NULL
                ORDER BY d.seq LIMIT 1)
        FROM webhooks w
        """

    /// Claims the due head of at most `limit` subscriptions for `claimToken` until `leaseExpiry`.
    static func claimDue<DB: StoreConnection>(
        limit: Int, now: Date, claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [ClaimedWebhookDelivery] {
        let due = try db.query(
            """
            SELECT id FROM webhook_deliveries
            WHERE next_attempt_at <= \(now) AND seq IN (\(heads))
            ORDER BY next_attempt_at, seq LIMIT \(max(0, limit)) \(DB.claimLock)
            """
        ) { row throws(StoreError) in try row.text("id") }
        guard !due.isEmpty else { return [] }
        let ids = DB.jsonTextElements(DeliveryStatements.jsonArray(due))
        try db.execute(
            """
            UPDATE webhook_deliveries SET status = \(WebhookDeliveryStatus.sending.rawValue),
                claim_token = \(claimToken), next_attempt_at = \(leaseExpiry), attempts = attempts + 1,
                updated_at = \(now)
            WHERE id IN (\(ids))
            """)
        let claimed = try db.query(
            """
            SELECT d.id AS id, d.webhook_id AS webhook_id, w.url AS url, w.secret AS secret, d.event_id AS event_id,
                   d.type AS type, d.body AS body, d.attempts AS attempts, d.created_at AS created_at
            FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.id IN (\(ids))
            """
        ) { row throws(StoreError) in
            try ClaimedWebhookDelivery(
                id: row.text("id"), claimToken: claimToken, webhookID: row.text("webhook_id"), url: row.text("url"),
                secret: row.text("secret"), eventID: row.text("event_id"),
                type: row.enumValue(WebhookEventType.self, "type"), body: row.text("body"),
                attempt: row.int("attempts"), createdAt: row.date("created_at"), leaseExpiresAt: leaseExpiry)
        }
        let order = Dictionary(uniqueKeysWithValues: due.enumerated().map { ($0.element, $0.offset) })
        return claimed.sorted { order[$0.id, default: 0] < order[$1.id, default: 0] }
    }

    /// Records the attempt of `completion` and its outcome, under its claim.
    static func complete(_ completion: WebhookCompletion, now: Date, _ db: some StoreConnection) throws -> Bool {
        let attempt = completion.attempt
        let entry = try StoreJSON.encode(
            StoredAttempt(
                attempt: attempt.attempt, at: StoreTime.milliseconds(attempt.at),
                durationMs: attempt.durationMilliseconds, httpStatus: attempt.httpStatus, error: attempt.error))
        let status: WebhookDeliveryStatus
        let next: Date?
        switch completion.outcome {
        case .delivered: (status, next) = (.delivered, nil)
        case .failed: (status, next) = (.failed, nil)
        case .retry(let at): (status, next) = (.pending, at)
        }
        // The entry goes at the end of the JSON array (the CASTs type the parameters for PostgreSQL).
        return try db.change(
            """
            UPDATE webhook_deliveries SET status = \(status.rawValue), next_attempt_at = \(next), claim_token = NULL,
                updated_at = \(now),
                attempt_log = CASE WHEN attempt_log = '[]' THEN '[' || CAST(\(entry) AS TEXT) || ']'
                    ELSE substr(attempt_log, 1, length(attempt_log) - 1) || ',' || CAST(\(entry) AS TEXT) || ']' END
            WHERE id = \(completion.id) AND claim_token = \(completion.claimToken)
              AND status = \(WebhookDeliveryStatus.sending.rawValue)
            """) > 0
    }

    /// Deletes at most ``InboxStatements/pruneBatch`` deliveries final since before `finishedBefore`.
    static func pruneFinishedBatch(before finishedBefore: Date) -> SQL {
        """
        DELETE FROM webhook_deliveries WHERE seq IN (
            SELECT seq FROM webhook_deliveries WHERE next_attempt_at IS NULL AND updated_at < \(finishedBefore)
            LIMIT \(InboxStatements.pruneBatch))
        """
    }

    /// Deletes at most ``InboxStatements/pruneBatch`` open deliveries whose subscription is gone
    /// (an event recorded while its subscription was being deleted on another server).
    static let pruneOrphansBatch: SQL = """
        DELETE FROM webhook_deliveries WHERE seq IN (
            SELECT d.seq FROM webhook_deliveries d
            WHERE d.next_attempt_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)
            LIMIT \(InboxStatements.pruneBatch))
        """
}

/// A delivery row as its webhook events tell of it.
struct DeliveryEventData {
    var id: String
    var notificationID: String
    var userID: String
    /// ``DeliveryKind``.
    var kind: String
    var token: String?
    var provider: String?
    var platform: String?
    var appID: String?
    var status: DeliveryStatus
    var reason: String?
    var providerStatus: Int?
    var attempts: Int

    /// `{id, notificationId, userId, kind, deviceToken, provider, platform, appId, status, reason,
    /// providerStatus, attempts}`: the device token masked (``DeviceTokenMask``),
    /// unset fields `null`.
    var json: String {
        JSONWriter.text { writer in
            writer.raw("{\"id\":")
            writer.string(id)
            writer.raw(",\"notificationId\":")
            writer.string(notificationID)
            writer.raw(",\"userId\":")
            writer.string(userID)
            writer.raw(",\"kind\":")
            writer.string(kind)
            writer.raw(",\"deviceToken\":")
            writer.optionalString(token.map(DeviceTokenMask.masked))
            writer.raw(",\"provider\":")
            writer.optionalString(provider)
            writer.raw(",\"platform\":")
            writer.optionalString(platform)
            writer.raw(",\"appId\":")
            writer.optionalString(token == nil ? nil : appID ?? DeviceRegistration.defaultAppID)
            writer.raw(",\"status\":")
            writer.string(status.rawValue)
            writer.raw(",\"reason\":")
            writer.optionalString(reason)
            writer.raw(",\"providerStatus\":")
            if let providerStatus { writer.int(providerStatus) } else { writer.raw("null") }
            writer.raw(",\"attempts\":")
            writer.int(attempts)
            writer.raw("}")
        }
    }
}
