import Foundation
import HeraldModel

/// Inbox rows, their counters and the live-update log. Every change writes the rows, the
/// user's counters and the stream event in the same transaction.
extension SQLiteStore {
    /// The columns of an inbox item, in the order ``inboxItem(_:)`` reads them.
    /// What the list answer is written from; all in `notifications_inbox`, so a page reads no table rows.
    static let renderedColumns: SQL = "seq, list_json, read_at, seen_at"

    static let itemColumns: SQL = """
        seq, id, type, category, title, body, data, deep_link, has_detail, created_at, read_at, seen_at
        """

    /// Rows an app user may see: the predicate of the partial inbox indexes, spelled the same
    /// way so the planner can use them.
    private static let visible: SQL = "deleted_at IS NULL AND hidden = 0"

    private static func inboxItem(_ row: SQLiteRow) throws(StoreError) -> (seq: Int64, item: InboxNotification) {
        let item = InboxNotification(
            id: row.text(1), type: row.text(2), category: row.optionalText(3),
            title: row.text(4), body: row.text(5),
            data: try row.stringMap(6),
            deepLink: row.optionalText(7), hasDetail: row.bool(8),
            createdAt: row.date(9), readAt: row.optionalDate(10), seenAt: row.optionalDate(11))
        return (row.int64(0), item)
    }

    // MARK: Publishing

    public func publish(
        _ notifications: [NewNotification], catalog: Catalog, idempotency claim: IdempotencyClaim?
    ) async throws -> PublishOutcome {
        try write { db in
            if let claim {
                let stored = try db.queryOne(
                    """
                    SELECT request_hash, response, created_at FROM idempotency_keys
                    WHERE api_key_id = \(claim.apiKeyID) AND idem_key = \(claim.key)
                    """
                ) { row in (hash: row.text(0), response: row.text(1), createdAt: row.date(2)) }
                if let stored, stored.createdAt >= claim.notBefore {
                    guard stored.hash == claim.requestHash else { return .conflict }
                    return .replayed(try StoreJSON.decode([PublishedNotification].self, from: stored.response))
                }
            }

            let (events, counts) = try Self.writeNotifications(notifications, catalog: catalog, db)

            if let claim {
                let answer = notifications.map { PublishedNotification(id: $0.id, recipient: $0.userID) }
                let response = try StoreJSON.encode(answer)
                let claimedAt = notifications.first?.createdAt ?? Date()
                try db.execute(
                    """
                    INSERT INTO idempotency_keys (api_key_id, idem_key, request_hash, response, created_at)
                    VALUES (\(claim.apiKeyID), \(claim.key), \(claim.requestHash), \(response), \(claimedAt))
                    ON CONFLICT (api_key_id, idem_key) DO UPDATE SET
                        request_hash = excluded.request_hash,
                        response = excluded.response,
                        created_at = excluded.created_at
                    """)
            }
            return .created(events: events, counts: counts)
        }
    }

    /// Writes the rows, their stream events, their delivery rows and the recipients' counters,
    /// inside the caller's write transaction: what a publish and a broadcast chunk share.
    /// Answers the `notification.created` events (input order) and each recipient's counts.
    static func writeNotifications(
        _ notifications: [NewNotification], catalog: Catalog, _ db: SQLiteConnection
    ) throws -> (events: [StreamEventRecord], counts: [String: Counts]) {
        var events: [StreamEventRecord] = []
        events.reserveCapacity(notifications.count)
        var recipients: [String] = []  // first-appearance order
        var added: [String: Int] = [:]  // visible rows added per user
        for notification in notifications {
            if added[notification.userID] == nil {
                recipients.append(notification.userID)
                added[notification.userID] = 0
            }
            let event = try Self.insert(notification, db)
            if let event {
                events.append(event)
                added[notification.userID, default: 0] += 1
            }
        }

        try Self.writeOutbox(for: notifications, catalog: catalog, db)

        var counts: [String: Counts] = [:]
        for userID in recipients {
            let delta = added[userID] ?? 0
            if delta > 0 {
                counts[userID] = try db.queryOne(
                    """
                    INSERT INTO user_counters (user_id, unread, unseen) VALUES (\(userID), \(delta), \(delta))
                    ON CONFLICT (user_id) DO UPDATE SET
                        unread = user_counters.unread + excluded.unread,
                        unseen = user_counters.unseen + excluded.unseen
                    RETURNING unread, unseen
                    """
                ) { row in Counts(unread: row.int(0), unseen: row.int(1)) }
            } else {
                counts[userID] = try Self.counts(db, userID: userID)
            }
        }
        return (events, counts)
    }

    /// Inserts one row (its statements are cached, so a batch reuses them); returns its
    /// `notification.created` event, or `nil` for a hidden row.
    private static func insert(_ notification: NewNotification, _ db: SQLiteConnection) throws -> StreamEventRecord? {
        let hasDetail = notification.detail.map { !$0.isEmpty } ?? false
        let data = StoreJSON.encodeData(notification.data)
        let detail = try notification.detail.map { value throws(StoreError) in try StoreJSON.encode(value) }
        let push = notification.push.map(StoreJSON.encodePush)
        let item = InboxNotification(
            id: notification.id, type: notification.type, category: notification.category,
            title: notification.title, body: notification.body, data: notification.data,
            deepLink: notification.deepLink, hasDetail: hasDetail,
            createdAt: StoreTime.date(StoreTime.milliseconds(notification.createdAt)))
        var writer = JSONWriter(capacity: 256 + item.title.utf8.count + item.body.utf8.count)
        writer.notificationFields(item)
        let listJSON = writer.text
        try db.execute(
            """
            INSERT INTO notifications (id, user_id, type, category, hidden, title, body, data, deep_link,
                                       detail, has_detail, push, created_at, list_json)
            VALUES (\(notification.id), \(notification.userID), \(notification.type), \(notification.category),
                    \(notification.hidden), \(notification.title), \(notification.body), \(data),
                    \(notification.deepLink), \(detail), \(hasDetail), \(push), \(notification.createdAt),
                    \(listJSON))
            """)
        guard !notification.hidden else { return nil }
        writer.notificationClose(readAt: nil, seenAt: nil)
        return try appendEvent(
            db, userID: notification.userID, kind: StreamEventRecord.notificationCreated,
            payload: writer.text, at: notification.createdAt)
    }

    private static func appendEvent(
        _ db: SQLiteConnection, userID: String, kind: String, payload: String, at: Date
    ) throws -> StreamEventRecord {
        let seq = try db.queryOne(
            """
            INSERT INTO stream_events (user_id, kind, payload, created_at)
            VALUES (\(userID), \(kind), \(payload), \(at))
            RETURNING seq
            """
        ) { row in row.int64(0) }
        guard let seq else {
            throw StoreError(code: .invalidStoredValue, message: "stream event insert returned no seq")
        }
        return StreamEventRecord(seq: seq, userID: userID, kind: kind, payload: payload)
    }

    // MARK: Inbox

    public func renderedInboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws
        -> RenderedInboxPage
    {
        let limit = min(max(1, limit), 1_000)
        let query = Self.pageQuery(userID: userID, category: category, beforeSeq: beforeSeq, limit: limit + 1)
        return try read { db in
            var rows = try db.query(query) { row in
                (
                    seq: row.int64(0),
                    item: RenderedInboxItem(json: row.text(1), readAt: row.optionalDate(2), seenAt: row.optionalDate(3))
                )
            }
            let hasMore = rows.count > limit
            if hasMore { rows.removeLast(rows.count - limit) }
            return RenderedInboxPage(
                items: rows.map(\.item), lastSeq: rows.last?.seq, hasMore: hasMore,
                counts: try Self.counts(db, userID: userID))
        }
    }

    /// One inbox page, newest first: served by `notifications_inbox` (covering: no table reads)
    /// or, with a category, `notifications_inbox_category`, reading only the rows returned.
    /// `INDEXED BY` pins the index: without statistics the planner would also pick the covering
    /// index for a category page, which scans the user's rows of every category.
    static func pageQuery(userID: String, category: String?, beforeSeq: Int64?, limit: Int) -> SQL {
        let categoryFilter: SQL = category.map { "AND category = \($0)" } ?? ""
        let index: SQL =
            category == nil
            ? "INDEXED BY notifications_inbox" : "INDEXED BY notifications_inbox_category"
        return """
            SELECT \(renderedColumns) FROM notifications \(index)
            WHERE user_id = \(userID) \(categoryFilter) AND \(visible) AND seq < \(beforeSeq ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit)
            """
    }

    public func notification(userID: String, id: String) async throws -> InboxNotification? {
        try read { db in
            try db.queryOne(
                """
                SELECT \(Self.itemColumns), detail FROM notifications
                WHERE id = \(id) AND user_id = \(userID) AND \(Self.visible)
                """
            ) { row throws(StoreError) in
                var item = try Self.inboxItem(row).item
                item.detail = try row.optionalJSON(NotificationDetail.self, 12)
                return item
            }
        }
    }

    public func publishedNotification(id: String) async throws -> StoredNotification? {
        try read { db in
            try db.queryOne(
                """
                SELECT \(Self.itemColumns), detail, user_id, push, hidden, deleted_at FROM notifications
                WHERE id = \(id)
                """
            ) { row throws(StoreError) in
                var item = try Self.inboxItem(row).item
                item.detail = try row.optionalJSON(NotificationDetail.self, 12)
                return StoredNotification(
                    userID: row.text(13), notification: item, push: try row.optionalJSON(PushOptions.self, 14),
                    hidden: row.bool(15), deleted: !row.isNull(16))
            }
        }
    }

    /// The user's own non-hidden row, deleted or not.
    private static func ownRow(_ db: SQLiteConnection, userID: String, id: String) throws
        -> (seq: Int64, item: InboxNotification, deleted: Bool)?
    {
        try db.queryOne(
            """
            SELECT \(itemColumns), deleted_at FROM notifications
            WHERE id = \(id) AND user_id = \(userID) AND hidden = 0
            """
        ) { row throws(StoreError) in
            let (seq, item) = try inboxItem(row)
            return (seq, item, !row.isNull(12))
        }
    }

    public func markRead(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try write { db in
            guard let row = try Self.ownRow(db, userID: userID, id: id), !row.deleted else { return nil }
            guard row.item.readAt == nil else {
                return ChangeOutcome(notification: row.item, event: nil, counts: try Self.counts(db, userID: userID))
            }
            var item = row.item
            let wasUnseen = item.seenAt == nil
            item.readAt = StoreTime.date(StoreTime.milliseconds(at))
            item.seenAt = item.seenAt ?? item.readAt
            try db.execute(
                "UPDATE notifications SET read_at = \(item.readAt), seen_at = \(item.seenAt) WHERE seq = \(row.seq)")
            let counts = try Self.adjustCounts(db, userID: userID, unread: -1, unseen: wasUnseen ? -1 : 0)
            let event = try Self.appendUpdate(db, userID: userID, item: item, deleted: false, at: at)
            return ChangeOutcome(notification: item, event: event, counts: counts)
        }
    }

    public func markAllSeen(userID: String, at: Date) async throws -> Counts {
        try write { db in
            try db.execute(Self.markAllSeenUpdate(userID: userID, at: at))
            return try db.queryOne(
                "UPDATE user_counters SET unseen = 0 WHERE user_id = \(userID) RETURNING unread, unseen"
            ) { row in Counts(unread: row.int(0), unseen: row.int(1)) } ?? Counts(unread: 0, unseen: 0)
        }
    }

    /// Touches only the user's unseen rows, through `notifications_unseen` (pinned, as above).
    static func markAllSeenUpdate(userID: String, at: Date) -> SQL {
        """
        UPDATE notifications INDEXED BY notifications_unseen SET seen_at = \(at)
        WHERE user_id = \(userID) AND seen_at IS NULL AND \(visible)
        """
    }

    public func delete(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try write { db in
            guard let row = try Self.ownRow(db, userID: userID, id: id) else { return nil }
            guard !row.deleted else {
                return ChangeOutcome(notification: row.item, event: nil, counts: try Self.counts(db, userID: userID))
            }
            try db.execute("UPDATE notifications SET deleted_at = \(at) WHERE seq = \(row.seq)")
            let counts = try Self.adjustCounts(
                db, userID: userID, unread: row.item.readAt == nil ? -1 : 0, unseen: row.item.seenAt == nil ? -1 : 0)
            let event = try Self.appendUpdate(db, userID: userID, item: row.item, deleted: true, at: at)
            return ChangeOutcome(notification: row.item, event: event, counts: counts)
        }
    }

    private static func appendUpdate(
        _ db: SQLiteConnection, userID: String, item: InboxNotification, deleted: Bool, at: Date
    ) throws -> StreamEventRecord {
        let payload = StreamEventRecord.NotificationUpdated(
            id: item.id, readAt: item.readAt, seenAt: item.seenAt, deleted: deleted)
        return try appendEvent(
            db, userID: userID, kind: StreamEventRecord.notificationUpdated, payload: try StoreJSON.encode(payload),
            at: at)
    }

    // MARK: Counts

    public func counts(userID: String) async throws -> Counts {
        try read { db in try Self.counts(db, userID: userID) }
    }

    static func counts(_ db: SQLiteConnection, userID: String) throws -> Counts {
        try db.queryOne("SELECT unread, unseen FROM user_counters WHERE user_id = \(userID)") { row in
            Counts(unread: row.int(0), unseen: row.int(1))
        } ?? Counts(unread: 0, unseen: 0)
    }

    private static func adjustCounts(_ db: SQLiteConnection, userID: String, unread: Int, unseen: Int) throws -> Counts
    {
        try db.queryOne(
            """
            UPDATE user_counters SET unread = unread + \(unread), unseen = unseen + \(unseen)
            WHERE user_id = \(userID) RETURNING unread, unseen
            """
        ) { row in Counts(unread: row.int(0), unseen: row.int(1)) } ?? Counts(unread: 0, unseen: 0)
    }

    // MARK: Live-update log

    public func streamEvents(userID: String, afterSeq: Int64, limit: Int) async throws -> [StreamEventRecord] {
        try read { db in
            try db.query(Self.streamEventsQuery(userID: userID, afterSeq: afterSeq, limit: max(0, limit))) { row in
                StreamEventRecord(seq: row.int64(0), userID: row.text(1), kind: row.text(2), payload: row.text(3))
            }
        }
    }

    /// Served by `stream_events_user`, reading only the rows returned.
    static func streamEventsQuery(userID: String, afterSeq: Int64, limit: Int) -> SQL {
        """
        SELECT seq, user_id, kind, payload FROM stream_events
        WHERE user_id = \(userID) AND seq > \(afterSeq) ORDER BY seq LIMIT \(limit)
        """
    }

    public func latestStreamSeq(userID: String) async throws -> Int64 {
        try read { db in
            let latest = try db.queryOne("SELECT MAX(seq) FROM stream_events WHERE user_id = \(userID)") { row in
                row.optionalInt64(0)
            }
            return (latest ?? nil) ?? 0
        }
    }

    /// Rows one pruning transaction deletes, so the writer lock is never held for long.
    static let pruneBatch = 5_000

    public func pruneStreamEvents(olderThan: Date) async throws -> Int {
        try pruneInBatches(
            """
            DELETE FROM stream_events WHERE seq IN (
                SELECT seq FROM stream_events WHERE created_at < \(olderThan) LIMIT \(Self.pruneBatch))
            """)
    }

    public func pruneIdempotencyKeys(olderThan: Date) async throws -> Int {
        try pruneInBatches(
            """
            DELETE FROM idempotency_keys WHERE rowid IN (
                SELECT rowid FROM idempotency_keys WHERE created_at < \(olderThan) LIMIT \(Self.pruneBatch))
            """)
    }

    /// Runs `delete` (which removes at most ``pruneBatch`` rows) in its own transactions until
    /// nothing is left; answers the rows removed.
    private func pruneInBatches(_ delete: SQL) throws -> Int {
        var total = 0
        while true {
            let removed = try write { db in
                try db.execute(delete)
                return db.changes
            }
            total += removed
            if removed < Self.pruneBatch { return total }
        }
    }
}
