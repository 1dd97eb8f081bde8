import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The push worker's side of the outbox, as both stores run it: claiming due deliveries and
/// recording their outcomes, each inside the caller's write transaction.
enum DeliveryStatements {
    /// A due row as the claim reads it, before deciding what becomes of it.
    private struct DueDelivery {
        var delivery: ClaimedDelivery
        var expires: Int64?
        /// The device is still active and still the recipient's.
        var deviceLive: Bool
        /// A push with a TTL of 0 (APNs: one attempt, never stored) due for the first time, not
        /// held by quiet hours: it gets that one attempt, though its expiry is its publish time.
        var onceNow: Bool

        /// The row's ``DeliveryStatements/dueColumns`` (and `device_live`), with what it pushes.
        init(
            _ row: some StoreRow, claimToken: String, leaseExpiry: Date, notification: InboxNotification,
            push: PushOptions? = nil, badge: Int = 0, liveActivity: LiveActivityContent? = nil
        ) throws(StoreError) {
            let attempts = try row.int("attempts")
            delivery = try ClaimedDelivery(
                id: row.text("id"), claimToken: claimToken, userID: row.text("user_id"),
                deviceToken: row.text("device_token"), provider: row.enumValue(PushProvider.self, "provider"),
                platform: row.enumValue(DevicePlatform.self, "platform"),
                environment: row.enumValue(PushEnvironment.self, "environment"), attempts: attempts + 1,
                leaseExpiresAt: leaseExpiry, expiresAt: row.optionalDate("expires_at"), notification: notification,
                push: push, badge: badge, appID: row.text("app_id"), liveActivity: liveActivity)
            expires = try row.optionalInt64("expires_at")
            deviceLive = try row.bool("device_live")
            let created = try row.optionalInt64("delivery_created_at")
            let status = try row.text("status")
            onceNow = expires != nil && expires == created && attempts == 0 && status == DeliveryStatus.queued.rawValue
        }
    }

    /// The delivery columns both claim reads take, as ``DueDelivery`` reads them.
    private static let dueColumns: SQL = """
        d.id AS id, d.user_id AS user_id, d.device_token AS device_token, d.provider AS provider,
        d.platform AS platform, d.environment AS environment, d.attempts AS attempts,
        COALESCE(d.app_id, \(DeviceRegistration.defaultAppID)) AS app_id, d.expires_at AS expires_at,
        d.created_at AS delivery_created_at, d.status AS status
        """

    /// `strings` as a JSON array, bound as one parameter and read back with
    /// ``StoreConnection/jsonTextElements(_:)``.
    static func jsonArray(_ strings: [String]) -> String {
        JSONWriter.text { writer in
            writer.raw("[")
            for (index, text) in strings.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(text)
            }
            writer.raw("]")
        }
    }

    // MARK: Claims

    /// Claims up to `limit` due rows for `claimToken` until `leaseExpiry`; rows past their TTL
    /// expire and rows whose device is gone are skipped instead.
    static func claimDue<DB: StoreConnection>(
        limit: Int, now: Date, claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [ClaimedDelivery] {
        let nowMilliseconds = StoreTime.milliseconds(now)
        let due = try db.query(dueDeliveriesQuery(now: now, limit: max(0, limit), DB.self)) {
            row throws(StoreError) in try row.text("id")
        }
        guard !due.isEmpty else { return [] }
        var rows = try dueDetails(due, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        if rows.count < due.count {
            // The rest are Live Activity pushes and digest summaries (or rows whose push is gone).
            let found = Set(rows.map(\.delivery.id))
            let rest = jsonArray(due.filter { !found.contains($0) })
            rows += try dueLiveActivityDetails(rest, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
            rows += try dueDigestDetails(rest, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
        // Back in due order: one lookup per row (a sort would look up both sides of each
        // comparison), ordering indexes, not rows. A row is about 700 bytes holding some twenty
        // references: each copy of one retains them all and each dropped copy releases them (in
        // a push profile, a third of all retains and releases were of such copies).
        let position = Dictionary(uniqueKeysWithValues: due.enumerated().map { ($0.element, $0.offset) })
        var order = [Int](repeating: -1, count: due.count)
        for (index, row) in rows.enumerated() {
            if let place = position[row.delivery.id] { order[place] = index }
        }

        var expired: [String] = []
        var gone: [String] = []
        var claimed: [ClaimedDelivery] = []
        claimed.reserveCapacity(rows.count)
        for index in order where index >= 0 {
            // Read in place: only the claimed delivery is copied out.
            if let expires = rows[index].expires, expires <= nowMilliseconds, !rows[index].onceNow {
                expired.append(rows[index].delivery.id)
            } else if !rows[index].deviceLive {
                gone.append(rows[index].delivery.id)
            } else {
                claimed.append(rows[index].delivery)
            }
        }

        try finish(expired, status: .expired, reason: DeliveryExpiryReason.ttl, now: now, db)
        try finish(gone, status: .skipped, reason: DeliverySkipReason.deviceInactive, now: now, db)
        try WebhookStatements.emitDeliveries(expired + gone, at: now, db)
        if !claimed.isEmpty {
            try db.execute(
                """
                UPDATE deliveries SET status = \(DeliveryStatus.sending.rawValue), claim_token = \(claimToken),
                    next_attempt_at = \(leaseExpiry), attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (\(DB.jsonTextElements(jsonArray(claimed.map(\.id)))))
                """)
        }
        return claimed
    }

    /// Due rows, oldest due first and then in the order they were written (delivery ids sort by
    /// time): one range scan of the covering `deliveries_due` index. Rows another worker is
    /// claiming at this moment are skipped (``StoreConnection/claimLock``).
    static func dueDeliveriesQuery<DB: StoreConnection>(now: Date, limit: Int, _: DB.Type) -> SQL {
        """
        SELECT id FROM deliveries
        WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= \(now)
        ORDER BY next_attempt_at, id LIMIT \(limit) \(DB.claimLock)
        """
    }

    /// Everything a worker sends for the deliveries `ids`, as it will be once
    /// claimed (one more attempt), with the device's current state. Every join is by key. Push
    /// options are decoded once per distinct text: a broadcast's rows all carry the same.
    private static func dueDetails<DB: StoreConnection>(
        _ ids: [String], claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [DueDelivery] {
        var pushOptions: [String: PushOptions] = [:]
        return try db.query(
            """
            SELECT \(dueColumns), n.id AS notification_id, n.type AS type, n.category AS category,
                   n.title AS title, n.body AS body, n.data AS data, n.deep_link AS deep_link,
                   n.has_detail AS has_detail, n.created_at AS created_at, n.push AS push,
                   COALESCE(c.unseen, 0) AS badge,
                   CASE WHEN v.active = 1 AND v.user_id = d.user_id THEN 1 ELSE 0 END AS device_live
            FROM deliveries d
            JOIN notifications n ON n.id = d.notification_id
            LEFT JOIN user_counters c ON c.user_id = d.user_id
            LEFT JOIN devices v ON v.token = d.device_token
            WHERE d.id IN (\(DB.jsonTextElements(jsonArray(ids))))
            """, capacity: ids.count
        ) { row throws(StoreError) in
            let push = try row.optionalText("push").map { text throws(StoreError) in
                if let known = pushOptions[text] { return known }
                let decoded = try StoreJSON.decode(PushOptions.self, from: text)
                pushOptions[text] = decoded
                return decoded
            }
            return try DueDelivery(
                row, claimToken: claimToken, leaseExpiry: leaseExpiry,
                notification: InboxNotification(
                    id: row.text("notification_id"), type: row.text("type"), category: row.optionalText("category"),
                    title: row.text("title"), body: row.text("body"), data: row.stringMap("data"),
                    deepLink: row.optionalText("deep_link"), hasDetail: row.bool("has_detail"),
                    createdAt: row.date("created_at")),
                push: push, badge: row.int("badge"))
        }
    }

    /// ``dueDetails(_:claimToken:leaseExpiry:_:)`` for Live Activity rows: the push's content, and
    /// whether its token is still active and the recipient's. The notification is a stand-in
    /// named after the push (its id, type `live_activity.<event>`, the alert's text), for logs.
    private static func dueLiveActivityDetails<DB: StoreConnection>(
        _ ids: String, claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [DueDelivery] {
        try db.query(
            """
            SELECT \(dueColumns), p.id AS push_id, p.content AS content, p.created_at AS created_at,
                   CASE WHEN t.active = 1 AND t.user_id = d.user_id THEN 1 ELSE 0 END AS device_live
            FROM deliveries d
            JOIN live_activity_pushes p ON p.id = d.notification_id
            LEFT JOIN live_activity_tokens t ON t.token = d.device_token
            WHERE d.id IN (\(DB.jsonTextElements(ids))) AND d.kind = \(DeliveryKind.liveActivity)
            """
        ) { row throws(StoreError) in
            let content = try row.json(LiveActivityContent.self, "content")
            return try DueDelivery(
                row, claimToken: claimToken, leaseExpiry: leaseExpiry,
                notification: InboxNotification(
                    id: row.text("push_id"), type: "live_activity.\(content.event.rawValue)", category: nil,
                    title: content.alert?.title ?? "", body: content.alert?.body ?? "", data: [:], deepLink: nil,
                    hasDetail: false, createdAt: row.date("created_at")),
                liveActivity: content)
        }
    }

    /// ``dueDetails(_:claimToken:leaseExpiry:_:)`` for digest summaries: the summary stands in for
    /// the notification (its id, type ``DigestStatements/summaryType``, its title and body, and
    /// `digestCount` in the data), with the recipient's unseen count as the badge.
    private static func dueDigestDetails<DB: StoreConnection>(
        _ ids: String, claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [DueDelivery] {
        try db.query(
            """
            SELECT \(dueColumns), g.id AS digest_id, g.title AS title, g.body AS body, g.count AS count,
                   g.created_at AS created_at, COALESCE(c.unseen, 0) AS badge,
                   CASE WHEN v.active = 1 AND v.user_id = d.user_id THEN 1 ELSE 0 END AS device_live
            FROM deliveries d
            JOIN digests g ON g.id = d.notification_id
            LEFT JOIN user_counters c ON c.user_id = d.user_id
            LEFT JOIN devices v ON v.token = d.device_token
            WHERE d.id IN (\(DB.jsonTextElements(ids))) AND d.kind = \(DeliveryKind.digest)
            """
        ) { row throws(StoreError) in
            try DueDelivery(
                row, claimToken: claimToken, leaseExpiry: leaseExpiry,
                notification: InboxNotification(
                    id: row.text("digest_id"), type: DigestStatements.summaryType, category: nil,
                    title: row.text("title"), body: row.text("body"),
                    data: ["digestCount": String(try row.int("count"))], deepLink: nil, hasDetail: false,
                    createdAt: row.date("created_at")),
                push: PushOptions(send: true), badge: row.int("badge"))
        }
    }

    /// Ends the deliveries `ids` (unclaimed) as `status` with `reason`.
    private static func finish<DB: StoreConnection>(
        _ ids: [String], status: DeliveryStatus, reason: String, now: Date, _ db: DB
    ) throws {
        guard !ids.isEmpty else { return }
        try db.execute(
            """
            UPDATE deliveries SET status = \(status.rawValue), reason = \(reason), next_attempt_at = NULL,
                claim_token = NULL, updated_at = \(now)
            WHERE id IN (\(DB.jsonTextElements(jsonArray(ids))))
            """)
    }

    // MARK: Outcomes

    /// Records `completions`, each under its own claim; false where the claim no longer holds
    /// the row. Sends, Expo tickets, failures and expiries (the bulk of a busy worker's outcomes)
    /// go in one statement per kind; prunes and retries, which read or decide more, one by one,
    /// in order, and so does every outcome of a delivery listed more than once (a lease that ran
    /// out and the same row claimed again): the first whose claim holds lands, the rest are
    /// false, as one by one.
    static func completeAll<DB: StoreConnection>(_ completions: [DeliveryCompletion], now: Date, _ db: DB) throws
        -> [Bool]
    {
        var held = [Bool](repeating: false, count: completions.count)
        var listed = Set<String>(minimumCapacity: completions.count)
        var repeated: Set<String> = []
        for completion in completions where !listed.insert(completion.id).inserted { repeated.insert(completion.id) }
        // Positions, not copies of the completions (each copy retains every string of one).
        var batches: [FinalOutcome: [Int]] = [:]
        for index in completions.indices {
            if let kind = FinalOutcome(completions[index].outcome), !repeated.contains(completions[index].id) {
                batches[kind, default: []].append(index)
            } else {
                held[index] = try complete(completions[index], now: now, db)
            }
        }
        for kind in FinalOutcome.allCases {
            guard let positions = batches[kind] else { continue }
            let outcomes = JSONWriter.text { writer in
                writer.raw("[")
                for (position, index) in positions.enumerated() {
                    writer.raw(position == 0 ? "[" : ",[")
                    writer.string(completions[index].id)
                    writer.raw(",")
                    writer.string(completions[index].claimToken)
                    FinalOutcome.writeValues(of: completions[index].outcome, to: &writer)
                    writer.raw(",")
                    if let status = completions[index].providerStatus { writer.int(status) } else { writer.raw("null") }
                    writer.raw("]")
                }
                writer.raw("]")
            }
            let recorded = try db.query(recordQuery(kind, outcomes, now: now, DB.self), capacity: positions.count) {
                row throws(StoreError) in try row.text("id")
            }
            let recordedIDs = Set(recorded)
            var emitted: [String] = []
            emitted.reserveCapacity(positions.count)
            for index in positions where recordedIDs.contains(completions[index].id) {
                held[index] = true
                emitted.append(completions[index].id)
            }
            try WebhookStatements.emitDeliveries(emitted, at: now, db)
        }
        return held
    }

    /// The outcomes ``completeAll(_:now:_:)`` records many at a time: each final, each setting
    /// the same columns from at most two values.
    enum FinalOutcome: CaseIterable {
        case sent, ticketed, failed, expired

        init?(_ outcome: DeliveryOutcome) {
            switch outcome {
            case .sent: self = .sent
            case .ticketed: self = .ticketed
            case .failed: self = .failed
            case .expired: self = .expired
            case .pruned, .retry: return nil
            }
        }

        /// Writes the outcome's two values, each after a comma (`null` where it has none): the
        /// provider message id; the ticket id and the receipt's due time in epoch milliseconds;
        /// the reason; nothing.
        static func writeValues(of outcome: DeliveryOutcome, to writer: inout JSONWriter) {
            switch outcome {
            case .sent(let messageID):
                writer.raw(",")
                if let messageID { writer.string(messageID) } else { writer.raw("null") }
                writer.raw(",null")
            case .ticketed(let ticketID, let receiptDueAt):
                writer.raw(",")
                writer.string(ticketID)
                writer.raw(",")
                writer.int(StoreTime.milliseconds(receiptDueAt))
            case .failed(let reason):
                writer.raw(",")
                writer.string(reason)
                writer.raw(",null")
            case .expired, .pruned, .retry:
                writer.raw(",null,null")
            }
        }

        /// What the outcome sets, from the element's values 2 and 3 (as ``complete(_:now:_:)``
        /// sets it for one row).
        var assignments: SQL {
            switch self {
            case .sent:
                "status = \(DeliveryStatus.sent.rawValue), reason = NULL, provider_message_id = element.value ->> 2"
            case .ticketed:
                """
                status = \(DeliveryStatus.sent.rawValue), reason = NULL, provider_ticket_id = element.value ->> 2,
                receipt_due_at = CAST(element.value ->> 3 AS BIGINT)
                """
            case .failed: "status = \(DeliveryStatus.failed.rawValue), reason = element.value ->> 2"
            case .expired: "status = \(DeliveryStatus.expired.rawValue), reason = \(DeliveryExpiryReason.ttl)"
            }
        }
    }

    /// Records the `kind` outcomes in the JSON array `outcomes` of `[id, claim token, value,
    /// value, provider status]` (``FinalOutcome/writeValues(of:to:)``) and answers the ids whose claim held:
    /// one lookup by key per element.
    static func recordQuery<DB: StoreConnection>(_ kind: FinalOutcome, _ outcomes: String, now: Date, _: DB.Type)
        -> SQL
    {
        """
        UPDATE deliveries SET \(kind.assignments), provider_status = CAST(element.value ->> 4 AS INTEGER),
            next_attempt_at = NULL, claim_token = NULL, updated_at = \(now)
        FROM \(DB.jsonElements(outcomes))
        WHERE deliveries.id = element.value ->> 0 AND deliveries.claim_token = element.value ->> 1
          AND deliveries.status = \(DeliveryStatus.sending.rawValue)
        RETURNING deliveries.id AS id
        """
    }

    /// Records one outcome; false when `completion`'s claim no longer holds the row.
    static func complete(_ completion: DeliveryCompletion, now: Date, _ db: some StoreConnection) throws -> Bool {
        let claimed: SQL = """
            id = \(completion.id) AND claim_token = \(completion.claimToken)
            AND status = \(DeliveryStatus.sending.rawValue)
            """
        let update: SQL
        switch completion.outcome {
        case .sent(let providerMessageID):
            update = """
                status = \(DeliveryStatus.sent.rawValue), reason = NULL, provider_message_id = \(providerMessageID),
                next_attempt_at = NULL
                """
        case .ticketed(let ticketID, let receiptDueAt):
            update = """
                status = \(DeliveryStatus.sent.rawValue), reason = NULL, provider_ticket_id = \(ticketID),
                receipt_due_at = \(receiptDueAt), next_attempt_at = NULL
                """
        case .retry(let retryAt, let reason):
            // A retry that would fall at or after the TTL expiry expires now. The CAST types the
            // parameter for PostgreSQL, which reads a bare one in a CASE as text.
            update = """
                status = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(retryAt)
                              THEN \(DeliveryStatus.expired.rawValue) ELSE \(DeliveryStatus.queued.rawValue) END,
                next_attempt_at = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(retryAt)
                                       THEN NULL ELSE CAST(\(retryAt) AS BIGINT) END,
                reason = \(reason)
                """
        case .failed(let reason), .pruned(let reason):
            update = "status = \(DeliveryStatus.failed.rawValue), reason = \(reason), next_attempt_at = NULL"
        case .expired:
            update = """
                status = \(DeliveryStatus.expired.rawValue), reason = \(DeliveryExpiryReason.ttl),
                next_attempt_at = NULL
                """
        }
        let prunes = if case .pruned = completion.outcome { true } else { false }
        // A claimed row's `updated_at` is its claim time: a device registered again (or moved)
        // after it is not the one the provider called dead.
        let claimedAt =
            try prunes
            ? db.queryOne("SELECT updated_at FROM deliveries WHERE \(claimed)") { row throws(StoreError) in
                try row.int64("updated_at")
            } : nil
        let target = try db.queryOne(
            """
            UPDATE deliveries SET \(update), provider_status = \(completion.providerStatus), claim_token = NULL,
                updated_at = \(now)
            WHERE \(claimed) RETURNING device_token, kind
            """
        ) { row throws(StoreError) in try (token: row.optionalText("device_token"), kind: row.text("kind")) }
        guard let target else { return false }
        try WebhookStatements.emitDeliveries([completion.id], at: now, db)
        if prunes, let token = target.token, let claimedAt {
            // A Live Activity push prunes the activity's token, never the device.
            let table: SQL =
                target.kind == DeliveryKind.liveActivity ? "live_activity_tokens" : "devices"
            let pruned = try db.change(
                "UPDATE \(table) SET active = 0, updated_at = \(now) WHERE token = \(token) AND updated_at <= \(claimedAt)"
            )
            if pruned > 0, target.kind != DeliveryKind.liveActivity, case .pruned(let reason) = completion.outcome {
                try WebhookStatements.emitDevicePruned(
                    token: token, deliveryID: completion.id, reason: reason, at: now, db)
            }
        }
        return true
    }

    // MARK: Expo receipts

    /// Claims up to `limit` tickets whose receipt is due, for `claimToken` until `leaseExpiry`.
    static func claimDueReceipts<DB: StoreConnection>(
        limit: Int, now: Date, claimToken: String, leaseExpiry: Date, _ db: DB
    ) throws -> [ClaimedReceipt] {
        let due = try db.query(
            """
            SELECT id FROM deliveries
            WHERE receipt_due_at IS NOT NULL AND receipt_due_at <= \(now)
            ORDER BY receipt_due_at LIMIT \(max(0, limit)) \(DB.claimLock)
            """
        ) { row throws(StoreError) in try row.text("id") }
        guard !due.isEmpty else { return [] }
        let claimed = try db.query(
            """
            UPDATE deliveries SET receipt_due_at = \(leaseExpiry), receipt_claim_token = \(claimToken)
            WHERE id IN (\(DB.jsonTextElements(jsonArray(due)))) AND provider_ticket_id IS NOT NULL
            RETURNING id, provider_ticket_id, updated_at, attempts, app_id
            """
        ) { row throws(StoreError) in
            try ClaimedReceipt(
                deliveryID: row.text("id"), ticketID: row.text("provider_ticket_id"), claimToken: claimToken,
                sentAt: row.date("updated_at"), attempts: row.int("attempts"),
                appID: row.optionalText("app_id") ?? DeviceRegistration.defaultAppID)
        }
        let order = Dictionary(uniqueKeysWithValues: due.enumerated().map { ($0.element, $0.offset) })
        return claimed.sorted { order[$0.deliveryID, default: 0] < order[$1.deliveryID, default: 0] }
    }

    /// Records what the receipts said; answers how many still held their claim.
    static func recordReceipts(_ receipts: [ReceiptOutcome], now: Date, _ db: some StoreConnection) throws -> Int {
        var changed = 0
        for outcome in receipts {
            let claimed: SQL = """
                id = \(outcome.receipt.deliveryID) AND receipt_claim_token = \(outcome.receipt.claimToken)
                """
            let update: SQL
            switch outcome.result {
            case .delivered:
                update = "receipt_due_at = NULL"
            case .notReady(let at):
                update = "receipt_due_at = \(at)"
            case .failed(let reason), .pruned(let reason):
                update = """
                    status = \(DeliveryStatus.failed.rawValue), reason = \(reason), receipt_due_at = NULL,
                    updated_at = \(now)
                    """
            case .resend(let at, let reason):
                // As a send's retry: one that would fall at or after the TTL expiry expires now
                // (the CAST as there).
                update = """
                    status = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(at)
                                  THEN \(DeliveryStatus.expired.rawValue) ELSE \(DeliveryStatus.queued.rawValue) END,
                    next_attempt_at = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(at)
                                           THEN NULL ELSE CAST(\(at) AS BIGINT) END,
                    reason = \(reason), provider_ticket_id = NULL, receipt_due_at = NULL, updated_at = \(now)
                    """
            }
            let token = try db.queryOne(
                """
                UPDATE deliveries SET \(update), receipt_claim_token = NULL
                WHERE \(claimed) RETURNING device_token
                """
            ) { row throws(StoreError) in try row.optionalText("device_token") }

            guard let token else { continue }
            changed += 1
            switch outcome.result {
            case .failed, .pruned, .resend:
                try WebhookStatements.emitDeliveries([outcome.receipt.deliveryID], at: now, db)
            case .delivered, .notReady: break
            }
            // A device registered again since the send (the app started, or the token moved
            // to another user) is live by a newer word than this receipt's.
            if case .pruned(let reason) = outcome.result, let token {
                let pruned = try db.change(
                    """
                    UPDATE devices SET active = 0, updated_at = \(now)
                    WHERE token = \(token) AND updated_at <= \(outcome.receipt.sentAt)
                    """)
                if pruned > 0 {
                    try WebhookStatements.emitDevicePruned(
                        token: token, deliveryID: outcome.receipt.deliveryID, reason: reason, at: now, db)
                }
            }
        }
        return changed
    }
}
