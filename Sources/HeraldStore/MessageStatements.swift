import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Messages (a publish or a broadcast as one thing), scheduled notifications, cancels and the
/// sources a user has received: statements both stores run inside the caller's transaction.
enum MessageStatements {
    /// The reason a cancelled push is skipped with.
    static let cancelledReason = "cancelled"
    /// The reason a funnel names a deferred row that quiet hours hold (stored without one).
    static let quietHoursReason = "quiet_hours"

    // MARK: Writing

    static func insert(_ message: NewMessage, _ db: some StoreConnection) throws {
        var sendAt: Date?
        var localTime: String?
        switch message.schedule {
        case .at(let date): sendAt = date
        case .localTime(let time): localTime = time
        case nil: break
        }
        try db.execute(
            """
            INSERT INTO messages (id, kind, api_key_id, type, title, category, source_id, source_name, send_at,
                                  deliver_local_time, created_at)
            VALUES (\(message.id), \(message.kind.rawValue), \(message.apiKeyID), \(message.type), \(message.title),
                    \(message.category), \(message.source?.id), \(message.source?.name), \(sendAt), \(localTime),
                    \(message.createdAt))
            """)
    }

    /// A notification waiting for its time, as stored: everything ``NewNotification`` holds but
    /// its creation time, which is the time it is published.
    private struct Held: Codable {
        var id: String
        var userID: String
        var type: String
        var category: String?
        var hidden: Bool
        var title: String
        var body: String
        var data: [String: String]
        var deepLink: String?
        var detail: NotificationDetail?
        var push: PushOptions?
        var messageID: String?
        var source: NotificationSource?

        init(_ notification: NewNotification) {
            id = notification.id
            userID = notification.userID
            type = notification.type
            category = notification.category
            hidden = notification.hidden
            title = notification.title
            body = notification.body
            data = notification.data
            deepLink = notification.deepLink
            detail = notification.detail
            push = notification.push
            messageID = notification.messageID
            source = notification.source
        }

        func notification(createdAt: Date) -> NewNotification {
            NewNotification(
                id: id, userID: userID, type: type, category: category, hidden: hidden, title: title, body: body,
                data: data, deepLink: deepLink, detail: detail, push: push, messageID: messageID, source: source,
                createdAt: createdAt)
        }
    }

    /// Holds `notifications` until `schedule` says (per recipient for a local time); answers
    /// each one's publish time, in input order.
    static func schedule<DB: StoreConnection>(
        _ notifications: [NewNotification], _ schedule: MessageSchedule, now: Date, _ db: DB
    ) throws -> [Date] {
        var zones: [String: TimeZone] = [:]
        if case .localTime = schedule {
            zones = try AccountStatements.timeZones(
                DeliveryStatements.jsonArray(Array(Set(notifications.map(\.userID)))), db)
        }
        var times: [Date] = []
        times.reserveCapacity(notifications.count)
        for notification in notifications {
            let due: Date
            switch schedule {
            case .at(let date): due = max(date, now)
            case .localTime(let time):
                let zone = zones[notification.userID] ?? LocalTime.zone(preferred: nil, fallback: nil)
                due = LocalTime.next(time, onOrAfter: now, in: zone) ?? now
            }
            let held = try StoreJSON.encode(Held(notification))
            try db.execute(
                """
                INSERT INTO scheduled_notifications (id, message_id, user_id, due_at, notification, created_at)
                VALUES (\(notification.id), \(notification.messageID ?? ""), \(notification.userID), \(due), \(held),
                        \(now))
                """)
            times.append(due)
        }
        return times
    }

    /// Publishes up to `limit` scheduled notifications whose time has come, each exactly as a
    /// publish at `now` writes it, and forgets them. Rows another server is publishing at this
    /// moment are skipped (``StoreConnection/claimLock``).
    static func publishDue<DB: StoreConnection>(limit: Int, rules: PushRules, now: Date, _ db: DB) throws
        -> ScheduledPublishRun
    {
        let due = try db.query(
            """
            SELECT id, notification FROM scheduled_notifications WHERE due_at <= \(now)
            ORDER BY due_at, id LIMIT \(max(0, limit)) \(DB.claimLock)
            """
        ) { row throws(StoreError) in
            try (id: row.text("id"), held: StoreJSON.decode(Held.self, from: row.text("notification")))
        }
        guard !due.isEmpty else { return ScheduledPublishRun(published: 0, wroteDeliveries: false) }
        try db.execute(
            """
            DELETE FROM scheduled_notifications
            WHERE id IN (\(DB.jsonTextElements(DeliveryStatements.jsonArray(due.map(\.id)))))
            """)
        let notifications = due.map { $0.held.notification(createdAt: now) }
        _ = try InboxStatements.writeNotifications(notifications, rules: rules, db)
        let pushes = notifications.contains { $0.push?.send == true && !$0.hidden }
        return ScheduledPublishRun(published: notifications.count, wroteDeliveries: pushes)
    }

    /// When the earliest scheduled notification is due; nil when none waits.
    static func nextDue(_ db: some StoreConnection) throws -> Date? {
        try db.queryOne("SELECT MIN(due_at) AS due FROM scheduled_notifications") { row throws(StoreError) in
            try row.optionalDate("due")
        } ?? nil
    }

    // MARK: Reading

    private static let columns: SQL = """
        seq, id, kind, type, title, category, source_id, source_name, send_at, deliver_local_time, created_at,
        cancelled_at, completed_at
        """

    private static func record(_ row: some StoreRow) throws(StoreError) -> MessageRecord {
        let sourceID = try row.optionalText("source_id")
        let sourceName = try row.optionalText("source_name")
        return try MessageRecord(
            id: row.text("id"), kind: row.enumValue(MessageKind.self, "kind"), type: row.text("type"),
            title: row.text("title"), category: row.optionalText("category"),
            source: sourceID.map { NotificationSource(id: $0, name: sourceName ?? $0) },
            sendAt: row.optionalDate("send_at"), deliverAtLocalTime: row.optionalText("deliver_local_time"),
            createdAt: row.date("created_at"), cancelledAt: row.optionalDate("cancelled_at"),
            completedAt: row.optionalDate("completed_at"), seq: row.int64("seq"))
    }

    static func message(id: String, _ db: some StoreConnection) throws -> (MessageRecord, MessageFunnel)? {
        guard let record = try db.queryOne("SELECT \(columns) FROM messages WHERE id = \(id)", record) else {
            return nil
        }
        return (record, try funnel(id: id, db))
    }

    /// The funnel of message `id`: four reads, each through an index on the message id.
    static func funnel(id: String, _ db: some StoreConnection) throws -> MessageFunnel {
        var funnel = MessageFunnel()
        for status in DeliveryStatus.allCases { funnel.pushes[status] = 0 }
        funnel.scheduled =
            try db.queryOne("SELECT COUNT(*) AS n FROM scheduled_notifications WHERE message_id = \(id)") {
                row throws(StoreError) in try row.int("n")
            } ?? 0
        let written = try db.queryOne(
            """
            SELECT COUNT(*) AS n,
                   COALESCE(SUM(CASE WHEN opened_at IS NOT NULL THEN 1 ELSE 0 END), 0) AS opened,
                   COALESCE(SUM(CASE WHEN read_at IS NOT NULL THEN 1 ELSE 0 END), 0) AS read_count
            FROM notifications WHERE message_id = \(id)
            """
        ) { row throws(StoreError) in try (row.int("n"), row.int("opened"), row.int("read_count")) }
        if let written {
            funnel.published = written.0
            funnel.opened = written.1
            funnel.read = written.2
        }
        funnel.recipients = funnel.published + funnel.scheduled
        let groups = try db.query(
            """
            SELECT d.status, d.reason, COUNT(*) AS n
            FROM notifications n JOIN deliveries d ON d.notification_id = n.id
            WHERE n.message_id = \(id) AND d.kind = \(DeliveryKind.notification)
            GROUP BY d.status, d.reason
            """
        ) { row throws(StoreError) in
            try (row.enumValue(DeliveryStatus.self, "status"), row.optionalText("reason"), row.int("n"))
        }
        for (status, reason, count) in groups {
            funnel.pushes[status, default: 0] += count
            switch status {
            case .skipped: funnel.skippedByReason[reason ?? "unknown", default: 0] += count
            case .deferred: funnel.deferredByReason[reason ?? quietHoursReason, default: 0] += count
            default: break
            }
        }
        return funnel
    }

    static func page(_ query: MessageQuery, _ db: some StoreConnection) throws -> MessagePage {
        var conditions: [SQL] = []
        if let beforeSeq = query.beforeSeq { conditions.append("seq < \(beforeSeq)") }
        if let type = query.type { conditions.append("type = \(type)") }
        if let source = query.sourceID { conditions.append("source_id = \(source)") }
        if let kind = query.kind { conditions.append("kind = \(kind.rawValue)") }
        if let from = query.createdFrom { conditions.append("created_at >= \(from)") }
        if let until = query.createdBefore { conditions.append("created_at < \(until)") }
        if query.scheduledOnly {
            conditions.append(
                "cancelled_at IS NULL AND EXISTS (SELECT 1 FROM scheduled_notifications s WHERE s.message_id = messages.id)"
            )
        }
        let filter = SQL.whereClause(conditions)
        let limit = min(max(1, query.limit), 100)
        let records = try db.query(
            "SELECT \(columns) FROM messages \(filter) ORDER BY seq DESC LIMIT \(limit + 1)", record)
        let items = try records.prefix(limit).map { record in (record: record, funnel: try funnel(id: record.id, db)) }
        return MessagePage(items: Array(items), hasMore: records.count > limit)
    }

    // MARK: Completing

    /// The open messages (at most `limit`, oldest first) with nothing left to go out: no
    /// notification still scheduled, no push queued, sending, deferred or held for a digest, and (a
    /// broadcast) its fan-out ended. Once finished a message stays so (nothing adds work to it
    /// after its last scheduled notification and its fan-out), so this may run as a plain read.
    static func finished<DB: StoreConnection>(limit: Int, _ db: DB) throws -> [String] {
        let open = try db.query(
            """
            SELECT id FROM messages WHERE completed_at IS NULL ORDER BY created_at, id LIMIT \(max(0, limit))
            """
        ) { row throws(StoreError) in try row.text("id") }
        guard !open.isEmpty else { return [] }
        let ids = DeliveryStatements.jsonArray(open)
        // What still has work, among the open messages, in one statement: a push not yet final
        // (due, in flight or deferred) or held for a digest, reached through each message's
        // notifications (`notifications_message`, then `deliveries_notification`); a notification
        // still scheduled; a fan-out not ended.
        let busy = Set(
            try db.query(
                """
                SELECT n.message_id AS id FROM deliveries d JOIN notifications n ON n.id = d.notification_id
                WHERE n.message_id IN (\(DB.jsonTextElements(ids))) AND d.kind = \(DeliveryKind.notification)
                  AND (d.next_attempt_at IS NOT NULL
                       OR (d.status = \(DeliveryStatus.digested.rawValue) AND d.digest_id IS NULL))
                UNION
                SELECT message_id FROM scheduled_notifications WHERE message_id IN (\(DB.jsonTextElements(ids)))
                UNION
                SELECT id FROM broadcasts WHERE id IN (\(DB.jsonTextElements(ids)))
                  AND status IN (\(BroadcastStatus.queued.rawValue), \(BroadcastStatus.running.rawValue))
                """
            ) { row throws(StoreError) in try row.text("id") })
        return open.filter { !busy.contains($0) }
    }

    /// Marks `ids` complete at `now`; answers those this call completed (of servers completing at
    /// once, each message is completed by one, and only that one records `message.completed`).
    static func complete(_ ids: [String], now: Date, _ db: some StoreConnection) throws -> [String] {
        try ids.filter { id in
            let completed =
                try db.change("UPDATE messages SET completed_at = \(now) WHERE id = \(id) AND completed_at IS NULL") > 0
            if completed {
                try WebhookStatements.emit(.messageCompleted, data: { try completedEventData(id: id, db) }, at: now, db)
            }
            return completed
        }
    }

    /// `message.completed`'s data: `{messageId, kind, type, title, source, cancelled, recipients,
    /// published, pushes: {status: n}, skipped: {reason: n}, opened, read}`.
    static func completedEventData(id: String, _ db: some StoreConnection) throws -> String {
        guard let (record, funnel) = try message(id: id, db) else {
            throw StoreError(code: .invalidStoredValue, message: "message \(id) vanished as it completed")
        }
        func counts(_ writer: inout JSONWriter, _ map: [String: Int]) {
            writer.raw("{")
            for (index, key) in map.keys.sorted().enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(key)
                writer.raw(":")
                writer.int(map[key] ?? 0)
            }
            writer.raw("}")
        }
        return JSONWriter.text { writer in
            writer.raw("{\"messageId\":")
            writer.string(record.id)
            writer.raw(",\"kind\":")
            writer.string(record.kind.rawValue)
            writer.raw(",\"type\":")
            writer.string(record.type)
            writer.raw(",\"title\":")
            writer.string(record.title)
            writer.raw(",\"sourceId\":")
            writer.optionalString(record.source?.id)
            writer.raw(",\"cancelled\":")
            writer.bool(record.cancelledAt != nil)
            writer.raw(",\"recipients\":")
            writer.int(funnel.recipients)
            writer.raw(",\"published\":")
            writer.int(funnel.published)
            writer.raw(",\"pushes\":")
            counts(&writer, Dictionary(uniqueKeysWithValues: funnel.pushes.map { ($0.key.rawValue, $0.value) }))
            writer.raw(",\"skipped\":")
            counts(&writer, funnel.skippedByReason)
            writer.raw(",\"opened\":")
            writer.int(funnel.opened)
            writer.raw(",\"read\":")
            writer.int(funnel.read)
            writer.raw("}")
        }
    }

    // MARK: Cancelling

    /// Cancels what of message `id` has not gone out: its scheduled notifications are forgotten,
    /// its queued, deferred and digest-held pushes are skipped (`cancelled`), a broadcast still
    /// fanning out stops. Nil for an unknown id. A second cancel cancels what is left (nothing).
    static func cancel(id: String, now: Date, _ db: some StoreConnection) throws -> MessageCancellation? {
        guard
            let kind = try db.queryOne(
                "SELECT kind FROM messages WHERE id = \(id)",
                { row throws(StoreError) in
                    try row.enumValue(MessageKind.self, "kind")
                })
        else { return nil }
        let scheduled = try db.change("DELETE FROM scheduled_notifications WHERE message_id = \(id)")
        let pushes = try db.change(
            """
            UPDATE deliveries SET status = \(DeliveryStatus.skipped.rawValue), reason = \(cancelledReason),
                next_attempt_at = NULL, claim_token = NULL, updated_at = \(now)
            WHERE notification_id IN (SELECT n.id FROM notifications n WHERE n.message_id = \(id))
              AND kind = \(DeliveryKind.notification)
              AND (status IN (\(DeliveryStatus.queued.rawValue), \(DeliveryStatus.deferred.rawValue))
                   OR (status = \(DeliveryStatus.digested.rawValue) AND digest_id IS NULL))
            """)
        if kind == .broadcast {
            try db.execute(
                """
                UPDATE broadcasts SET status = \(BroadcastStatus.failed.rawValue), failure_reason = \(cancelledReason),
                    claim_token = NULL, lease_expires_at = NULL, completed_at = \(now), updated_at = \(now)
                WHERE id = \(id) AND status IN (\(BroadcastStatus.queued.rawValue), \(BroadcastStatus.running.rawValue))
                """)
        }
        let cancelledAt = try db.queryOne(
            """
            UPDATE messages SET cancelled_at = COALESCE(cancelled_at, \(now)) WHERE id = \(id)
            RETURNING cancelled_at
            """
        ) { row throws(StoreError) in try row.date("cancelled_at") }
        return MessageCancellation(scheduled: scheduled, pushes: pushes, cancelledAt: cancelledAt ?? now)
    }

    // MARK: Sources

    /// The sources `userID` has received visible notifications from, most recently heard from
    /// first (at most ``Limits/mutedSourcesMax``), each with its newest name; `muted` from
    /// `mutedSources`.
    static func sources(userID: String, mutedSources: [String], _ db: some StoreConnection) throws
        -> [ReceivedSource]
    {
        let muted = Set(mutedSources)
        return try db.query(
            """
            SELECT n.source_id, n.source_name, n.created_at
            FROM notifications n JOIN (
                SELECT source_id, MAX(seq) AS seq FROM notifications
                WHERE user_id = \(userID) AND source_id IS NOT NULL AND hidden = 0
                GROUP BY source_id
            ) latest ON latest.seq = n.seq
            ORDER BY n.seq DESC LIMIT \(Limits.mutedSourcesMax)
            """
        ) { row throws(StoreError) in
            let id = try row.text("source_id")
            return try ReceivedSource(
                id: id, name: row.optionalText("source_name") ?? id, muted: muted.contains(id),
                lastReceivedAt: row.date("created_at"))
        }
    }
}
