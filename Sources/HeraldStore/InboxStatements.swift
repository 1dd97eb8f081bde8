import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The inbox statements both stores run the same way: publishing, reading, read and delete
/// marks, counters and the live-update log. Each function runs inside the caller's
/// transaction; every change writes the rows, the user's counters and the stream event together.
enum InboxStatements {
    /// What the list answer is written from; all in `notifications_inbox`, so a page reads no table rows.
    static let renderedColumns: SQL = "seq, list_json, read_at, seen_at"

    /// The columns of an inbox item, read by ``inboxItem(_:)``.
    static let itemColumns: SQL = """
        seq, id, type, category, title, body, data, deep_link, has_detail, created_at, read_at, seen_at
        """

    /// Rows an app user may see: the predicate of the partial inbox indexes, spelled the same
    /// way so the planner can use them.
    static let visible: SQL = "deleted_at IS NULL AND hidden = 0"

    private static func inboxItem(_ row: some StoreRow) throws(StoreError) -> (seq: Int64, item: InboxNotification) {
        let item = try InboxNotification(
            id: row.text("id"), type: row.text("type"), category: row.optionalText("category"),
            title: row.text("title"), body: row.text("body"), data: row.stringMap("data"),
            deepLink: row.optionalText("deep_link"), hasDetail: row.bool("has_detail"),
            createdAt: row.date("created_at"), readAt: row.optionalDate("read_at"), seenAt: row.optionalDate("seen_at"))
        return (try row.int64("seq"), item)
    }

    // MARK: Publishing

    /// A publish: replays or refuses a claimed key, otherwise writes the notifications and
    /// records the claim's answer.
    static func publish<DB: StoreConnection>(
        _ notifications: [NewNotification], message: NewMessage?, rules: PushRules,
        idempotency claim: IdempotencyClaim?,
        _ db: DB
    ) throws -> PublishOutcome {
        if let claim {
            try db.lockIdempotencyKey(claim)
            let stored = try db.queryOne(
                """
                SELECT request_hash, response, created_at FROM idempotency_keys
                WHERE api_key_id = \(claim.apiKeyID) AND idem_key = \(claim.key)
                """
            ) { row throws(StoreError) in
                try (hash: row.text("request_hash"), response: row.text("response"), createdAt: row.date("created_at"))
            }
            if let stored, stored.createdAt >= claim.notBefore {
                guard stored.hash == claim.requestHash else { return .conflict }
                return .replayed(try replayedAnswer(stored.response))
            }
        }

        if let message { try MessageStatements.insert(message, db) }
        var events: [StreamEventRecord] = []
        var counts: [String: Counts] = [:]
        var answer: [PublishedNotification]
        var times: [Date]?
        if let message, let schedule = message.schedule {
            let scheduled = try MessageStatements.schedule(notifications, schedule, now: message.createdAt, db)
            times = scheduled
            answer = zip(notifications, scheduled).map {
                PublishedNotification(id: $0.id, recipient: $0.userID, sendAt: $1)
            }
        } else {
            (events, counts) = try writeNotifications(notifications, rules: rules, db)
            answer = notifications.map { PublishedNotification(id: $0.id, recipient: $0.userID) }
        }

        if let claim {
            let response = try StoreJSON.encode(PublishResponse(messageId: message?.id, notifications: answer))
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
        if let times { return .scheduled(sendAt: times) }
        return .created(events: events, counts: counts)
    }

    /// A stored answer: the whole response, or (recorded before messages) the notifications alone.
    private static func replayedAnswer(_ text: String) throws -> PublishResponse {
        if text.hasPrefix("[") {
            return PublishResponse(
                messageId: nil, notifications: try StoreJSON.decode([PublishedNotification].self, from: text))
        }
        return try StoreJSON.decode(PublishResponse.self, from: text)
    }

    /// Writes the rows, their stream events, their delivery rows and the recipients' counters,
    /// inside the caller's write transaction: what a publish and a broadcast chunk share.
    /// Answers the `notification.created` events (input order) and each recipient's counts.
    static func writeNotifications<DB: StoreConnection>(
        _ notifications: [NewNotification], rules: PushRules, _ db: DB
    ) throws -> (events: [StreamEventRecord], counts: [String: Counts]) {
        var pending: [PendingEvent] = []
        pending.reserveCapacity(notifications.count)
        var added: [String: Int] = [:]  // visible rows added per user
        for notification in notifications {
            if added[notification.userID] == nil { added[notification.userID] = 0 }
            let event = try insert(notification, db)
            if let event {
                pending.append(event)
                added[notification.userID, default: 0] += 1
            }
        }

        try OutboxStatements.writeOutbox(for: notifications, rules: rules, db)

        var counts: [String: Counts] = [:]
        // Counter rows are locked in user-id order: two publishes to the same users, listed in
        // other orders, wait for each other instead of deadlocking on PostgreSQL.
        for userID in added.keys.sorted() {
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
                ) { row throws(StoreError) in try Counts(row) }
            } else {
                counts[userID] = try Self.counts(db, userID: userID)
            }
        }
        // Logged last, once every recipient's counter row is locked (see `appendEvents`).
        return (try appendEvents(pending, db), counts)
    }

    /// Inserts one row (its statements are cached, so a batch reuses them); returns its
    /// `notification.created` event to log, or `nil` for a hidden row.
    private static func insert(_ notification: NewNotification, _ db: some StoreConnection) throws
        -> PendingEvent?
    {
        let hasDetail = notification.detail.map { !$0.isEmpty } ?? false
        let data = StoreJSON.encodeData(notification.data)
        let detail = try notification.detail.map { value throws(StoreError) in try StoreJSON.encode(value) }
        let push = try notification.push.map { options throws(StoreError) in try StoreJSON.encodePush(options) }
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
                                       detail, has_detail, push, created_at, list_json, message_id, source_id,
                                       source_name)
            VALUES (\(notification.id), \(notification.userID), \(notification.type), \(notification.category),
                    \(notification.hidden), \(notification.title), \(notification.body), \(data),
                    \(notification.deepLink), \(detail), \(hasDetail), \(push), \(notification.createdAt),
                    \(listJSON), \(notification.messageID), \(notification.source?.id), \(notification.source?.name))
            """)
        guard !notification.hidden else { return nil }
        writer.notificationClose(readAt: nil, seenAt: nil)
        return PendingEvent(
            userID: notification.userID, kind: StreamEventRecord.notificationCreated, payload: writer.text,
            at: notification.createdAt)
    }

    /// A stream event to log at the end of its transaction.
    private struct PendingEvent {
        var userID: String
        var kind: String
        var payload: String
        var at: Date
    }

    /// Logs `pending` in order and announces them to the other processes; answers the logged events.
    ///
    /// The caller has already changed (so locked) the counter row of every user in `pending`,
    /// and holds it until commit. A sequence hands out numbers at `nextval`, not at commit; were
    /// they drawn before that lock, a transaction holding seq 7 of a user could commit after
    /// one holding seq 8, and a stream that resumed after 8 would never get 7. Drawn under it,
    /// one user's events commit in sequence order in every process (SQLite's one writer gives
    /// that anyway), which the live hub and `Last-Event-ID` rely on.
    private static func appendEvents(_ pending: [PendingEvent], _ db: some StoreConnection) throws
        -> [StreamEventRecord]
    {
        guard !pending.isEmpty else { return [] }
        var events: [StreamEventRecord] = []
        events.reserveCapacity(pending.count)
        var userIDs: [String] = []  // first-appearance order
        var announced: Set<String> = []
        for event in pending {
            let seq = try db.insertReturningKey(
                """
                INSERT INTO stream_events (user_id, kind, payload, created_at)
                VALUES (\(event.userID), \(event.kind), \(event.payload), \(event.at))
                """, key: "seq")
            events.append(StreamEventRecord(seq: seq, userID: event.userID, kind: event.kind, payload: event.payload))
            if announced.insert(event.userID).inserted { userIDs.append(event.userID) }
        }
        try db.announce(.events(userIDs: userIDs, throughSeq: events.map(\.seq).max() ?? 0))
        return events
    }

    // MARK: Inbox

    /// One inbox page, newest first: served by `notifications_inbox` (covering: no table reads)
    /// or, with a category, `notifications_inbox_category`, reading only the rows returned.
    /// Where the database takes a hint, it is pinned: without statistics SQLite's planner would
    /// also pick the covering index for a category page, which scans the user's rows of every
    /// category.
    static func pageQuery<DB: StoreConnection>(
        userID: String, category: String?, beforeSeq: Int64?, limit: Int, _: DB.Type
    ) -> SQL {
        let categoryFilter: SQL = category.map { "AND category = \($0)" } ?? ""
        let index = DB.indexHint(category == nil ? "notifications_inbox" : "notifications_inbox_category")
        return """
            SELECT \(renderedColumns) FROM notifications \(index)
            WHERE user_id = \(userID) \(categoryFilter) AND \(visible) AND seq < \(beforeSeq ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit)
            """
    }

    /// The page (``pageQuery(userID:category:beforeSeq:limit:_:)``, asking for one row more than
    /// the page holds) and the user's counts in ONE statement: one round trip on PostgreSQL, and
    /// one snapshot on either database (a statement sees one committed state), so the page and
    /// its counts agree without a transaction around two reads. The counts come as a row of kind 0
    /// (none without a counter row: zeros), the page's rows as kind 1.
    static func pageWithCountsQuery<DB: StoreConnection>(
        userID: String, category: String?, beforeSeq: Int64?, limit: Int, _: DB.Type
    ) -> SQL {
        let page = pageQuery(userID: userID, category: category, beforeSeq: beforeSeq, limit: limit, DB.self)
        return """
            SELECT 0 AS kind, NULL AS seq, NULL AS list_json, NULL AS read_at, NULL AS seen_at, unread, unseen
            FROM user_counters WHERE user_id = \(userID)
            UNION ALL
            SELECT 1, seq, list_json, read_at, seen_at, NULL, NULL FROM (\(page)) AS page
            """
    }

    /// One row of a ``pageWithCountsQuery(userID:category:beforeSeq:limit:_:)``: the user's
    /// counts, or an item of the page.
    enum PageRow: Sendable {
        case counts(Counts)
        case item(seq: Int64, RenderedInboxItem)

        init(_ row: some StoreRow) throws(StoreError) {
            if try row.int64("kind") == 0 {
                self = .counts(try Counts(row))
            } else {
                self = try .item(
                    seq: row.int64("seq"),
                    RenderedInboxItem(
                        json: row.text("list_json"), readAt: row.optionalDate("read_at"),
                        seenAt: row.optionalDate("seen_at")))
            }
        }
    }

    /// The page a ``pageWithCountsQuery(userID:category:beforeSeq:limit:_:)`` asking for one
    /// row more than `limit` answered, with the user's counts.
    static func page(_ answered: [PageRow], limit: Int) -> RenderedInboxPage {
        var counts = Counts(unread: 0, unseen: 0)
        var rows: [(seq: Int64, item: RenderedInboxItem)] = []
        rows.reserveCapacity(limit + 1)
        for row in answered {
            switch row {
            case .counts(let answer): counts = answer
            case .item(let seq, let item): rows.append((seq, item))
            }
        }
        // A union promises no order across its parts: newest first again (at most limit + 1 rows).
        rows.sort { $0.seq > $1.seq }
        let hasMore = rows.count > limit
        if hasMore { rows.removeLast(rows.count - limit) }
        return RenderedInboxPage(items: rows.map(\.item), lastSeq: rows.last?.seq, hasMore: hasMore, counts: counts)
    }

    static func notification(userID: String, id: String, _ db: some StoreConnection) throws -> InboxNotification? {
        try db.queryOne(
            """
            SELECT \(itemColumns), detail FROM notifications
            WHERE id = \(id) AND user_id = \(userID) AND \(visible)
            """
        ) { row throws(StoreError) in
            var item = try inboxItem(row).item
            item.detail = try row.optionalJSON(NotificationDetail.self, "detail")
            return item
        }
    }

    static func publishedNotification(id: String, _ db: some StoreConnection) throws -> StoredNotification? {
        try db.queryOne(
            """
            SELECT \(itemColumns), detail, user_id, push, hidden, deleted_at FROM notifications
            WHERE id = \(id)
            """
        ) { row throws(StoreError) in
            var item = try inboxItem(row).item
            item.detail = try row.optionalJSON(NotificationDetail.self, "detail")
            return try StoredNotification(
                userID: row.text("user_id"), notification: item, push: row.optionalJSON(PushOptions.self, "push"),
                hidden: row.bool("hidden"), deleted: !row.isNull("deleted_at"))
        }
    }

    /// The user's own non-hidden row, deleted or not, locked until the transaction ends.
    private static func ownRow<DB: StoreConnection>(_ db: DB, userID: String, id: String) throws
        -> (seq: Int64, item: InboxNotification, deleted: Bool)?
    {
        try db.queryOne(
            """
            SELECT \(itemColumns), deleted_at FROM notifications
            WHERE id = \(id) AND user_id = \(userID) AND hidden = 0 \(DB.rowLock)
            """
        ) { row throws(StoreError) in
            let (seq, item) = try inboxItem(row)
            return (seq, item, try !row.isNull("deleted_at"))
        }
    }

    static func markRead(userID: String, id: String, at: Date, _ db: some StoreConnection) throws -> ChangeOutcome? {
        guard let row = try ownRow(db, userID: userID, id: id), !row.deleted else { return nil }
        guard row.item.readAt == nil else {
            return ChangeOutcome(notification: row.item, event: nil, counts: try counts(db, userID: userID))
        }
        var item = row.item
        let wasUnseen = item.seenAt == nil
        item.readAt = StoreTime.date(StoreTime.milliseconds(at))
        item.seenAt = item.seenAt ?? item.readAt
        try db.execute(
            "UPDATE notifications SET read_at = \(item.readAt), seen_at = \(item.seenAt) WHERE seq = \(row.seq)")
        let counts = try adjustCounts(db, userID: userID, unread: -1, unseen: wasUnseen ? -1 : 0)
        let event = try appendUpdate(db, userID: userID, item: item, deleted: false, at: at)
        try WebhookStatements.emitNotification(.notificationRead, userID: userID, notification: item, at: at, db)
        return ChangeOutcome(notification: item, event: event, counts: counts)
    }

    /// Records that `userID` opened notification `id` from its push: the first time is kept.
    /// Answers when it was first opened; nil for a notification that is not theirs, is hidden
    /// or deleted.
    static func markOpened(userID: String, id: String, at: Date, _ db: some StoreConnection) throws -> Date? {
        guard let row = try ownRow(db, userID: userID, id: id), !row.deleted else { return nil }
        let first = try db.queryOne(
            "UPDATE notifications SET opened_at = \(at) WHERE seq = \(row.seq) AND opened_at IS NULL RETURNING opened_at"
        ) { row throws(StoreError) in try row.date("opened_at") }
        guard let first else {
            return try db.queryOne("SELECT opened_at FROM notifications WHERE seq = \(row.seq)") {
                row throws(StoreError) in try row.date("opened_at")
            }
        }
        try WebhookStatements.emitNotification(.notificationOpened, userID: userID, notification: row.item, at: at, db)
        return first
    }

    /// Marks every visible row seen (``markAllSeenUpdate(userID:at:_:)``) and zeroes the unseen
    /// counter. The counter row is locked first, so a publish committing meanwhile adds its
    /// unseen rows to the counter after the zero, never before.
    static func markAllSeen<DB: StoreConnection>(userID: String, at: Date, _ db: DB) throws -> Counts {
        _ = try db.queryOne("SELECT 1 FROM user_counters WHERE user_id = \(userID) \(DB.rowLock)") { _ in true }
        try db.execute(markAllSeenUpdate(userID: userID, at: at, DB.self))
        try db.announce(.counts(userIDs: [userID]))
        return try db.queryOne(
            "UPDATE user_counters SET unseen = 0 WHERE user_id = \(userID) RETURNING unread, unseen"
        ) { row throws(StoreError) in try Counts(row) } ?? Counts(unread: 0, unseen: 0)
    }

    /// Sets `seen_at` on the user's unseen rows, touching only those, through
    /// `notifications_unseen` (pinned where the database takes a hint, as in ``pageQuery(userID:category:beforeSeq:limit:_:)``).
    static func markAllSeenUpdate<DB: StoreConnection>(userID: String, at: Date, _: DB.Type) -> SQL {
        """
        UPDATE notifications \(DB.indexHint("notifications_unseen")) SET seen_at = \(at)
        WHERE user_id = \(userID) AND seen_at IS NULL AND \(visible)
        """
    }

    static func delete(userID: String, id: String, at: Date, _ db: some StoreConnection) throws -> ChangeOutcome? {
        guard let row = try ownRow(db, userID: userID, id: id) else { return nil }
        guard !row.deleted else {
            return ChangeOutcome(notification: row.item, event: nil, counts: try counts(db, userID: userID))
        }
        try db.execute("UPDATE notifications SET deleted_at = \(at) WHERE seq = \(row.seq)")
        let counts = try adjustCounts(
            db, userID: userID, unread: row.item.readAt == nil ? -1 : 0, unseen: row.item.seenAt == nil ? -1 : 0)
        let event = try appendUpdate(db, userID: userID, item: row.item, deleted: true, at: at)
        return ChangeOutcome(notification: row.item, event: event, counts: counts)
    }

    private static func appendUpdate(
        _ db: some StoreConnection, userID: String, item: InboxNotification, deleted: Bool, at: Date
    ) throws -> StreamEventRecord {
        let payload = StreamEventRecord.NotificationUpdated(
            id: item.id, readAt: item.readAt, seenAt: item.seenAt, deleted: deleted)
        let pending = PendingEvent(
            userID: userID, kind: StreamEventRecord.notificationUpdated, payload: try StoreJSON.encode(payload), at: at)
        guard let event = try appendEvents([pending], db).first else {
            throw StoreError(code: .invalidStoredValue, message: "stream event insert logged nothing")
        }
        return event
    }

    // MARK: Counts

    static func counts(_ db: some StoreConnection, userID: String) throws -> Counts {
        try db.queryOne(countsQuery(userID: userID)) { row throws(StoreError) in try Counts(row) }
            ?? Counts(unread: 0, unseen: 0)
    }

    /// The user's counter row (none before their first notification: zeros).
    static func countsQuery(userID: String) -> SQL {
        "SELECT unread, unseen FROM user_counters WHERE user_id = \(userID)"
    }

    private static func adjustCounts(_ db: some StoreConnection, userID: String, unread: Int, unseen: Int) throws
        -> Counts
    {
        try db.queryOne(
            """
            UPDATE user_counters SET unread = unread + \(unread), unseen = unseen + \(unseen)
            WHERE user_id = \(userID) RETURNING unread, unseen
            """
        ) { row throws(StoreError) in try Counts(row) } ?? Counts(unread: 0, unseen: 0)
    }

    // MARK: Live-update log

    /// Served by `stream_events_user`, reading only the rows returned.
    static func streamEventsQuery(userID: String, afterSeq: Int64, limit: Int) -> SQL {
        """
        SELECT seq, user_id, kind, payload FROM stream_events
        WHERE user_id = \(userID) AND seq > \(afterSeq) ORDER BY seq LIMIT \(limit)
        """
    }

    /// The newest stream event's seq of a user, as one row (`latest`, NULL when none).
    static func latestStreamSeqQuery(userID: String) -> SQL {
        "SELECT MAX(seq) AS latest FROM stream_events WHERE user_id = \(userID)"
    }

    // MARK: Pruning

    /// Rows one pruning transaction deletes, so the writer lock is never held for long.
    static let pruneBatch = 5_000

    /// Deletes at most ``pruneBatch`` stream events older than `olderThan`.
    static func pruneStreamEventsBatch(olderThan: Date) -> SQL {
        """
        DELETE FROM stream_events WHERE seq IN (
            SELECT seq FROM stream_events WHERE created_at < \(olderThan) LIMIT \(pruneBatch))
        """
    }

    /// Deletes at most ``pruneBatch`` idempotency keys older than `olderThan`.
    static func pruneIdempotencyKeysBatch<DB: StoreConnection>(olderThan: Date, _: DB.Type) -> SQL {
        """
        DELETE FROM idempotency_keys WHERE \(DB.rowIdentity) IN (
            SELECT \(DB.rowIdentity) FROM idempotency_keys WHERE created_at < \(olderThan) LIMIT \(pruneBatch))
        """
    }
}

extension StreamEventRecord {
    /// A row of ``InboxStatements/streamEventsQuery(userID:afterSeq:limit:)``.
    init(_ row: some StoreRow) throws(StoreError) {
        try self.init(
            seq: row.int64("seq"), userID: row.text("user_id"), kind: row.text("kind"), payload: row.text("payload"))
    }
}

extension Counts {
    /// A row's `unread` and `unseen` columns (a counter row, or what changing one returns).
    init(_ row: some StoreRow) throws(StoreError) {
        self.init(unread: try row.int("unread"), unseen: try row.int("unseen"))
    }
}
