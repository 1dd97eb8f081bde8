import Foundation
import HeraldModel

/// The delivery outbox as workers and publishers see it: claims, outcomes and per-device status.
extension SQLiteStore {
    // MARK: Publisher reads

    public func deliveries(notificationID: String) async throws -> [DeliveryRecord] {
        try read { db in
            try db.query(
                """
                SELECT id, notification_id, user_id, device_token, provider, platform, environment, status, reason,
                       attempts, next_attempt_at, expires_at, provider_message_id, created_at, updated_at
                FROM deliveries WHERE notification_id = \(notificationID)
                ORDER BY created_at, provider, platform, device_token
                """
            ) { row throws(StoreError) in
                DeliveryRecord(
                    id: row.text(0), notificationID: row.text(1), userID: row.text(2),
                    deviceToken: row.optionalText(3),
                    provider: try row.optionalEnumValue(PushProvider.self, 4),
                    platform: try row.optionalEnumValue(DevicePlatform.self, 5),
                    environment: try row.optionalEnumValue(PushEnvironment.self, 6),
                    status: try row.enumValue(DeliveryStatus.self, 7), reason: row.optionalText(8),
                    attempts: row.int(9), nextAttemptAt: row.optionalDate(10), expiresAt: row.optionalDate(11),
                    providerMessageID: row.optionalText(12), createdAt: row.date(13), updatedAt: row.date(14))
            }
        }
    }

    // MARK: Claiming

    public func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = now.addingTimeInterval(lease)
        let nowMilliseconds = StoreTime.milliseconds(now)
        return try write { db in
            let due = try db.query(Self.dueDeliveriesQuery(now: now, limit: max(0, limit))) { row in
                (id: row.text(0), expires: row.optionalInt64(1))
            }
            guard !due.isEmpty else { return [] }
            let stale = due.filter { $0.expires.map { $0 <= nowMilliseconds } ?? false }.map(\.id)
            let live = due.filter { $0.expires.map { $0 > nowMilliseconds } ?? true }.map(\.id)
            if !stale.isEmpty {
                try db.execute(
                    """
                    UPDATE deliveries SET status = \(DeliveryStatus.expired.rawValue),
                        reason = \(DeliveryExpiryReason.ttl), next_attempt_at = NULL, claim_token = NULL,
                        updated_at = \(now)
                    WHERE id IN (SELECT value FROM json_each(\(Self.jsonArray(stale))))
                    """)
            }
            guard !live.isEmpty else { return [] }
            let ids = Self.jsonArray(live)
            try db.execute(
                """
                UPDATE deliveries SET status = \(DeliveryStatus.sending.rawValue), claim_token = \(claimToken),
                    next_attempt_at = \(leaseExpiry), attempts = attempts + 1, updated_at = \(now)
                WHERE id IN (SELECT value FROM json_each(\(ids)))
                """)
            let claimed = try db.query(
                """
                SELECT d.id, d.user_id, d.device_token, d.provider, d.platform, d.environment, d.attempts,
                       d.expires_at, n.id, n.type, n.category, n.title, n.body, n.data, n.deep_link,
                       n.has_detail, n.created_at, n.push, COALESCE(c.unseen, 0)
                FROM deliveries d
                JOIN notifications n ON n.id = d.notification_id
                LEFT JOIN user_counters c ON c.user_id = d.user_id
                WHERE d.id IN (SELECT value FROM json_each(\(ids)))
                """
            ) { row throws(StoreError) in
                ClaimedDelivery(
                    id: row.text(0), claimToken: claimToken, userID: row.text(1), deviceToken: row.text(2),
                    provider: try row.enumValue(PushProvider.self, 3),
                    platform: try row.enumValue(DevicePlatform.self, 4),
                    environment: try row.enumValue(PushEnvironment.self, 5), attempts: row.int(6),
                    leaseExpiresAt: StoreTime.date(StoreTime.milliseconds(leaseExpiry)),
                    expiresAt: row.optionalDate(7),
                    notification: InboxNotification(
                        id: row.text(8), type: row.text(9), category: row.optionalText(10), title: row.text(11),
                        body: row.text(12), data: try row.stringMap(13), deepLink: row.optionalText(14),
                        hasDetail: row.bool(15), createdAt: row.date(16)),
                    push: try row.optionalJSON(PushOptions.self, 17), badge: row.int(18))
            }
            let order = Dictionary(uniqueKeysWithValues: live.enumerated().map { ($0.element, $0.offset) })
            return claimed.sorted { order[$0.id, default: 0] < order[$1.id, default: 0] }
        }
    }

    /// Due rows, oldest due first: one range scan of the covering `deliveries_due` index.
    static func dueDeliveriesQuery(now: Date, limit: Int) -> SQL {
        """
        SELECT id, expires_at FROM deliveries
        WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= \(now)
        ORDER BY next_attempt_at LIMIT \(limit)
        """
    }

    /// `strings` as a JSON array, bound as one parameter and read back with `json_each`.
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

    // MARK: Outcomes

    public func completeDelivery(id: String, claimToken: String, outcome: DeliveryOutcome, now: Date) async throws
        -> Bool
    {
        let claimed: SQL = "id = \(id) AND claim_token = \(claimToken) AND status = \(DeliveryStatus.sending.rawValue)"
        let update: SQL
        switch outcome {
        case .sent(let providerMessageID):
            update = """
                status = \(DeliveryStatus.sent.rawValue), reason = NULL, provider_message_id = \(providerMessageID),
                next_attempt_at = NULL
                """
        case .retry(let retryAt, let reason):
            // A retry that would fall at or after the TTL expiry expires now.
            update = """
                status = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(retryAt)
                              THEN \(DeliveryStatus.expired.rawValue) ELSE \(DeliveryStatus.queued.rawValue) END,
                next_attempt_at = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(retryAt)
                                       THEN NULL ELSE \(retryAt) END,
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
        let prunes = if case .pruned = outcome { true } else { false }
        return try write { db in
            let token = try db.queryOne(
                """
                UPDATE deliveries SET \(update), claim_token = NULL, updated_at = \(now)
                WHERE \(claimed) RETURNING device_token
                """
            ) { row in row.optionalText(0) }
            guard let token else { return false }
            if prunes, let token {
                try db.execute("UPDATE devices SET active = 0, updated_at = \(now) WHERE token = \(token)")
            }
            return true
        }
    }
}
