import FoundationEssentials
import HeraldModel

/// What a publisher reads across users (the console): notifications with their delivery tallies,
/// a user's deliveries, delivery buckets over time and device counts. Each runs inside the
/// caller's transaction or read.
enum PublisherStatements {
    static func notifications(_ query: NotificationQuery, _ db: some StoreConnection) throws -> NotificationSummaryPage
    {
        var conditions: [SQL] = []
        if let userID = query.userID { conditions.append("n.user_id = \(userID)") }
        if let type = query.type {
            // A whole-segment prefix, compared as text: no LIKE, so `_` in a type means itself.
            let prefix = type + "."
            conditions.append("(n.type = \(type) OR substr(n.type, 1, \(prefix.utf8.count)) = \(prefix))")
        }
        if let status = query.status {
            conditions.append(
                "EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.status = \(status.rawValue))")
        }
        if let from = query.createdFrom { conditions.append("n.created_at >= \(from)") }
        if let before = query.createdBefore { conditions.append("n.created_at < \(before)") }
        if let beforeSeq = query.beforeSeq { conditions.append("n.seq < \(beforeSeq)") }
        let filter = SQL.whereClause(conditions)
        var items = try db.query(
            """
            SELECT n.seq, n.id, n.user_id, n.type, n.category, n.title, n.body, n.hidden, n.created_at, n.read_at,
                   n.seen_at, n.deleted_at
            FROM notifications n \(filter)
            ORDER BY n.seq DESC LIMIT \(query.limit + 1)
            """
        ) { row throws(StoreError) in
            try NotificationSummary(
                seq: row.int64("seq"), id: row.text("id"), userID: row.text("user_id"), type: row.text("type"),
                category: row.optionalText("category"), title: row.text("title"), body: row.text("body"),
                hidden: row.bool("hidden"), createdAt: row.date("created_at"), readAt: row.optionalDate("read_at"),
                seenAt: row.optionalDate("seen_at"), deletedAt: row.optionalDate("deleted_at"),
                deliveries: DeliveryTally())
        }
        let hasMore = items.count > query.limit
        if hasMore { items.removeLast() }
        for index in items.indices {
            items[index].deliveries = try tally(notificationID: items[index].id, db)
        }
        return NotificationSummaryPage(items: items, hasMore: hasMore)
    }

    /// The statuses of one notification's deliveries (`deliveries_notification`).
    static func tally(notificationID: String, _ db: some StoreConnection) throws -> DeliveryTally {
        var tally = DeliveryTally()
        let rows = try db.query(
            """
            SELECT status, COUNT(*) AS deliveries FROM deliveries WHERE notification_id = \(notificationID)
            GROUP BY status
            """
        ) { row throws(StoreError) in try (row.enumValue(DeliveryStatus.self, "status"), row.int("deliveries")) }
        for (status, count) in rows { tally.add(status, count) }
        return tally
    }

    /// The deliveries of the user's newest `limit` notifications, newest first: through
    /// `notifications_user`, then `deliveries_notification`.
    static func deliveries(userID: String, limit: Int, _ db: some StoreConnection) throws -> [DeliveryRecord] {
        let ids = try db.query(
            "SELECT id FROM notifications WHERE user_id = \(userID) ORDER BY seq DESC LIMIT \(limit)"
        ) { row throws(StoreError) in try row.text("id") }
        return try ids.flatMap { id in try OutboxStatements.deliveries(notificationID: id, db) }
    }

    /// Deliveries created since `since`, counted per `bucketSeconds` bucket, provider and status
    /// (`deliveries_created`).
    static func deliveryBuckets(since: Date, bucketSeconds: Int, _ db: some StoreConnection) throws
        -> [DeliveryBucket]
    {
        let width = Int64(bucketSeconds) * 1000
        let origin = StoreTime.milliseconds(since)
        return try db.query(
            """
            SELECT (created_at - \(origin)) / \(width) AS bucket, provider, status, COUNT(*) AS deliveries
            FROM deliveries WHERE created_at >= \(since)
            GROUP BY bucket, provider, status
            ORDER BY bucket, provider, status
            """
        ) { row throws(StoreError) in
            try DeliveryBucket(
                start: StoreTime.date(origin + row.int64("bucket") * width),
                provider: row.optionalEnumValue(PushProvider.self, "provider"),
                status: row.enumValue(DeliveryStatus.self, "status"), count: row.int("deliveries"))
        }
    }

    /// Devices per provider, active and not.
    static func deviceTallies(_ db: some StoreConnection) throws -> [DeviceTally] {
        let rows = try db.query(
            """
            SELECT provider, active, COUNT(*) AS devices FROM devices GROUP BY provider, active ORDER BY provider
            """
        ) { row throws(StoreError) in
            try (row.enumValue(PushProvider.self, "provider"), row.bool("active"), row.int("devices"))
        }
        return PushProvider.allCases.map { provider in
            let mine = rows.filter { $0.0 == provider }
            return DeviceTally(
                provider: provider, active: mine.filter { $0.1 }.map(\.2).reduce(0, +),
                inactive: mine.filter { !$0.1 }.map(\.2).reduce(0, +))
        }
    }
}
