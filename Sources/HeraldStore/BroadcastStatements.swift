import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Broadcasts, as both stores run them: stored with their listed audience in the request,
/// fanned out later by a runner one chunk per write transaction, through the same writes as
/// a publish (``InboxStatements/writeNotifications(_:catalog:_:)``).
enum BroadcastStatements {
    private static let broadcastColumns: SQL = """
        id, api_key_id, audience, status, total, processed, failure_reason, created_at, started_at, completed_at
        """

    private static func broadcastRecord(_ row: some StoreRow) throws(StoreError) -> BroadcastRecord {
        try BroadcastRecord(
            id: row.text("id"), apiKeyID: row.text("api_key_id"),
            audience: row.enumValue(BroadcastAudienceKind.self, "audience"),
            status: row.enumValue(BroadcastStatus.self, "status"), total: row.optionalInt64("total").map(Int.init),
            processed: row.int("processed"), failureReason: row.optionalText("failure_reason"),
            createdAt: row.date("created_at"), startedAt: row.optionalDate("started_at"),
            completedAt: row.optionalDate("completed_at"))
    }

    static func storedBroadcast(_ db: some StoreConnection, id: String) throws -> BroadcastRecord? {
        try db.queryOne("SELECT \(broadcastColumns) FROM broadcasts WHERE id = \(id)") { row throws(StoreError) in
            try broadcastRecord(row)
        }
    }

    /// A broadcast's `Idempotency-Key` shares the publish table under its own prefix. A key is
    /// visible ASCII without spaces, so a publish key can never take the same slot.
    static func broadcastIdempotencyKey(_ key: String) -> String { "broadcast " + key }

    /// Stores a broadcast and its listed users, or replays or refuses a claimed key, or refuses a
    /// key with `maxActive` broadcasts queued or running.
    static func create(
        _ broadcast: NewBroadcast, idempotency claim: IdempotencyClaim?, maxActive: Int?, _ db: some StoreConnection
    ) throws -> BroadcastCreation {
        let template = try StoreJSON.encode(broadcast.template)
        let audience: BroadcastAudienceKind = broadcast.userIDs == nil ? .all : .users
        let idempotencyKey = claim.map { broadcastIdempotencyKey($0.key) }
        if var claim, let idempotencyKey {
            claim.key = idempotencyKey
            try db.lockIdempotencyKey(claim)
            let stored = try db.queryOne(
                """
                SELECT request_hash, response, created_at FROM idempotency_keys
                WHERE api_key_id = \(claim.apiKeyID) AND idem_key = \(idempotencyKey)
                """
            ) { row throws(StoreError) in
                try (
                    hash: row.text("request_hash"), broadcastID: row.text("response"), createdAt: row.date("created_at")
                )
            }
            if let stored, stored.createdAt >= claim.notBefore {
                guard stored.hash == claim.requestHash else { return .conflict }
                guard let first = try storedBroadcast(db, id: stored.broadcastID) else {
                    throw StoreError(code: .invalidStoredValue, message: "idempotency key names no broadcast")
                }
                return .replayed(first)
            }
        }

        if let maxActive {
            // Held to the end of the transaction, so two creations for one key count one at a time.
            try db.holdLock("broadcast quota " + broadcast.apiKeyID)
            let active = try activeCount(apiKeyID: broadcast.apiKeyID, db)
            if active >= maxActive { return .limitReached(active: active) }
        }

        var total: Int?
        if let userIDs = broadcast.userIDs {
            var distinct = 0
            for userID in userIDs {
                distinct += try db.change(
                    """
                    INSERT INTO broadcast_users (broadcast_id, user_id) VALUES (\(broadcast.id), \(userID))
                    ON CONFLICT (broadcast_id, user_id) DO NOTHING
                    """)
            }
            total = distinct
        }
        try db.execute(
            """
            INSERT INTO broadcasts (id, api_key_id, audience, template, status, total, processed, after_user_id,
                                    created_at, updated_at)
            VALUES (\(broadcast.id), \(broadcast.apiKeyID), \(audience.rawValue), \(template),
                    \(BroadcastStatus.queued.rawValue), \(total), 0, '', \(broadcast.createdAt),
                    \(broadcast.createdAt))
            """)
        // A broadcast is a message too, under the same id.
        try MessageStatements.insert(
            NewMessage(
                id: broadcast.id, kind: .broadcast, apiKeyID: broadcast.apiKeyID, type: broadcast.template.type,
                title: broadcast.template.title, category: broadcast.category, source: broadcast.template.source,
                createdAt: broadcast.createdAt), db)
        if let claim, let idempotencyKey {
            // The response of a broadcast's claim is its id.
            try db.execute(
                """
                INSERT INTO idempotency_keys (api_key_id, idem_key, request_hash, response, created_at)
                VALUES (\(claim.apiKeyID), \(idempotencyKey), \(claim.requestHash), \(broadcast.id),
                        \(broadcast.createdAt))
                ON CONFLICT (api_key_id, idem_key) DO UPDATE SET
                    request_hash = excluded.request_hash,
                    response = excluded.response,
                    created_at = excluded.created_at
                """)
        }
        guard let created = try storedBroadcast(db, id: broadcast.id) else {
            throw StoreError(code: .invalidStoredValue, message: "broadcast insert left no row")
        }
        return .created(created)
    }

    /// The broadcasts of `apiKeyID` that are queued or running (read through the index of
    /// unfinished broadcasts, whose condition this repeats).
    static func activeCount(apiKeyID: String, _ db: some StoreConnection) throws(StoreError) -> Int {
        try db.queryOne(
            """
            SELECT COUNT(*) AS active FROM broadcasts
            WHERE status IN ('queued', 'running') AND api_key_id = \(apiKeyID)
            """
        ) { row throws(StoreError) in try row.int("active") } ?? 0
    }

    /// One page of broadcasts, newest first.
    static func page(beforeSeq: Int64?, limit: Int, _ db: some StoreConnection) throws -> BroadcastPage {
        var rows = try db.query(
            """
            SELECT \(broadcastColumns), seq FROM broadcasts WHERE seq < \(beforeSeq ?? Int64.max)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """
        ) { row throws(StoreError) in try (record: broadcastRecord(row), seq: row.int64("seq")) }
        let hasMore = rows.count > limit
        if hasMore { rows.removeLast(rows.count - limit) }
        return BroadcastPage(items: rows.map(\.record), lastSeq: rows.last?.seq, hasMore: hasMore)
    }

    /// Takes the oldest claimable broadcast for `claimToken` until `leaseExpiry`; answers its id
    /// and whether its total is still to be counted.
    static func claim<DB: StoreConnection>(now: Date, claimToken: String, leaseExpiry: Date, _ db: DB) throws
        -> (id: String, needsTotal: Bool)?
    {
        let candidate = try db.queryOne(claimableBroadcastQuery(now: now, DB.self)) { row throws(StoreError) in
            try (id: row.text("id"), needsTotal: row.isNull("total"))
        }
        guard let candidate else { return nil }
        try db.execute(
            """
            UPDATE broadcasts SET status = \(BroadcastStatus.running.rawValue), claim_token = \(claimToken),
                lease_expires_at = \(leaseExpiry), started_at = COALESCE(started_at, \(now)), updated_at = \(now)
            WHERE id = \(candidate.id)
            """)
        return candidate
    }

    /// The number of users an `all` broadcast reaches, counted when it is first claimed.
    static func knownUsersCount(_ db: some StoreConnection) throws -> Int {
        try db.queryOne(knownUsersCountQuery) { row throws(StoreError) in try row.int("users") } ?? 0
    }

    /// Records `total` on a claimed broadcast that has none yet.
    static func setTotal(_ total: Int, id: String, claimToken: String, _ db: some StoreConnection) throws {
        try db.execute(
            """
            UPDATE broadcasts SET total = \(total)
            WHERE id = \(id) AND claim_token = \(claimToken) AND total IS NULL
            """)
    }

    /// The oldest unfinished broadcast no live runner holds: `id`, `total`. Served by
    /// `broadcasts_unfinished` (its predicate is spelled the same way); a row another runner is
    /// claiming at this moment is skipped (``StoreConnection/claimLock``).
    static func claimableBroadcastQuery<DB: StoreConnection>(now: Date, _: DB.Type) -> SQL {
        """
        SELECT id, total FROM broadcasts
        WHERE status IN ('queued', 'running') AND (status = 'queued' OR lease_expires_at <= \(now))
        ORDER BY seq LIMIT 1 \(DB.claimLock)
        """
    }

    /// Every user id Herald knows, after `after`, in user id order: a merge of three ordered
    /// index scans (`devices_user` and the primary keys of `preferences` and `user_counters`)
    /// that stops after `limit` ids.
    static func knownUsersQuery(after: String, limit: Int) -> SQL {
        """
        SELECT user_id FROM devices WHERE user_id > \(after)
        UNION SELECT user_id FROM preferences WHERE user_id > \(after)
        UNION SELECT user_id FROM user_counters WHERE user_id > \(after)
        ORDER BY user_id LIMIT \(limit)
        """
    }

    static let knownUsersCountQuery: SQL = """
        SELECT COUNT(*) AS users FROM (
            SELECT user_id FROM devices UNION SELECT user_id FROM preferences UNION SELECT user_id FROM user_counters
        ) AS known
        """

    /// The listed users of `broadcastID` after `after`, in user id order (the primary key).
    static func listedUsersQuery(broadcastID: String, after: String, limit: Int) -> SQL {
        """
        SELECT user_id FROM broadcast_users WHERE broadcast_id = \(broadcastID) AND user_id > \(after)
        ORDER BY user_id LIMIT \(limit)
        """
    }

    /// Writes the next chunk of a held broadcast; `nil` when `claimToken` no longer holds it.
    static func fanOutChunk<DB: StoreConnection>(
        id: String, claimToken: String, limit: Int, rules: PushRules, now: Date, leaseExpiry: Date, _ db: DB
    ) throws -> BroadcastChunk? {
        let catalog = rules.catalog
        let held = try db.queryOne(
            """
            SELECT audience, template, after_user_id FROM broadcasts
            WHERE id = \(id) AND claim_token = \(claimToken) AND status = \(BroadcastStatus.running.rawValue)
            \(DB.rowLock)
            """
        ) { row throws(StoreError) in
            try (
                audience: row.enumValue(BroadcastAudienceKind.self, "audience"),
                template: row.json(BroadcastTemplate.self, "template"), after: row.text("after_user_id")
            )
        }
        guard let held else { return nil }
        let usersQuery =
            switch held.audience {
            case .all: knownUsersQuery(after: held.after, limit: limit)
            case .users: listedUsersQuery(broadcastID: id, after: held.after, limit: limit)
            }
        let users = try db.query(usersQuery) { row throws(StoreError) in try row.text("user_id") }

        let template = held.template
        let category = catalog.category(forType: template.type)
        let hidden = catalog.isHidden(type: template.type)
        let notifications = users.map { userID in
            NewNotification(
                id: TimeOrderedID.make(), userID: userID, type: template.type, category: category,
                hidden: hidden, title: template.title, body: template.body, data: template.data,
                deepLink: template.deepLink, detail: template.detail, push: template.push, messageID: id,
                source: template.source, createdAt: now)
        }
        let (events, counts) = try InboxStatements.writeNotifications(notifications, rules: rules, db)

        let reached = users.count
        let cursor = users.last ?? held.after
        if reached < limit {
            // The audience is exhausted. For `all`, the total becomes the users reached.
            try db.execute(
                """
                UPDATE broadcasts SET after_user_id = \(cursor), processed = processed + \(reached),
                    total = CASE WHEN audience = \(BroadcastAudienceKind.all.rawValue)
                                 THEN processed + \(reached) ELSE total END,
                    status = \(BroadcastStatus.completed.rawValue), completed_at = \(now), claim_token = NULL,
                    lease_expires_at = NULL, updated_at = \(now)
                WHERE id = \(id)
                """)
        } else {
            try db.execute(
                """
                UPDATE broadcasts SET after_user_id = \(cursor), processed = processed + \(reached),
                    lease_expires_at = \(leaseExpiry), updated_at = \(now)
                WHERE id = \(id)
                """)
        }
        guard let broadcast = try storedBroadcast(db, id: id) else {
            throw StoreError(code: .invalidStoredValue, message: "broadcast \(id) vanished mid-chunk")
        }
        let pushes = template.push?.send == true && !hidden && !users.isEmpty
        return BroadcastChunk(events: events, counts: counts, wroteDeliveries: pushes, broadcast: broadcast)
    }

    /// Hands a held broadcast back, due at once; false when `claimToken` no longer holds it.
    static func release(id: String, claimToken: String, now: Date, _ db: some StoreConnection) throws -> Bool {
        try db.change(
            """
            UPDATE broadcasts SET claim_token = NULL, lease_expires_at = \(now), updated_at = \(now)
            WHERE id = \(id) AND claim_token = \(claimToken) AND status = \(BroadcastStatus.running.rawValue)
            """) > 0
    }

    /// Ends a held broadcast as failed; false when `claimToken` no longer holds it.
    static func fail(id: String, claimToken: String, reason: String, now: Date, _ db: some StoreConnection) throws
        -> Bool
    {
        try db.change(
            """
            UPDATE broadcasts SET status = \(BroadcastStatus.failed.rawValue), failure_reason = \(reason),
                completed_at = \(now), claim_token = NULL, lease_expires_at = NULL, updated_at = \(now)
            WHERE id = \(id) AND claim_token = \(claimToken)
            """) > 0
    }
}
