import Foundation
import HeraldModel

/// Workers claim due deliveries here, in one write transaction per claim.
extension SQLiteStore {
    /// A due row as the claim reads it, before deciding what becomes of it.
    private struct DueDelivery {
        var delivery: ClaimedDelivery
        var expires: Int64?
        /// The device is still active and still the recipient's.
        var deviceLive: Bool
    }

    public func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        let nowMilliseconds = StoreTime.milliseconds(now)
        return try write { db in
            let due = try db.query(Self.dueDeliveriesQuery(now: now, limit: max(0, limit))) { row in row.text(0) }
            guard !due.isEmpty else { return [] }
            let rows = try Self.dueDetails(Self.jsonArray(due), claimToken: claimToken, leaseExpiry: leaseExpiry, db)
            let order = Dictionary(uniqueKeysWithValues: due.enumerated().map { ($0.element, $0.offset) })
            let sorted = rows.sorted { order[$0.delivery.id, default: 0] < order[$1.delivery.id, default: 0] }

            var expired: [String] = []
            var gone: [String] = []
            var claimed: [ClaimedDelivery] = []
            for row in sorted {
                if let expires = row.expires, expires <= nowMilliseconds {
                    expired.append(row.delivery.id)
                } else if !row.deviceLive {
                    gone.append(row.delivery.id)
                } else {
                    claimed.append(row.delivery)
                }
            }

            try Self.finish(expired, status: .expired, reason: DeliveryExpiryReason.ttl, now: now, db)
            try Self.finish(gone, status: .skipped, reason: DeliverySkipReason.deviceInactive, now: now, db)
            if !claimed.isEmpty {
                try db.execute(
                    """
                    UPDATE deliveries SET status = \(DeliveryStatus.sending.rawValue), claim_token = \(claimToken),
                        next_attempt_at = \(leaseExpiry), attempts = attempts + 1, updated_at = \(now)
                    WHERE id IN (SELECT value FROM json_each(\(Self.jsonArray(claimed.map(\.id)))))
                    """)
            }
            return claimed
        }
    }

    /// Due rows, oldest due first: one range scan of the covering `deliveries_due` index.
    static func dueDeliveriesQuery(now: Date, limit: Int) -> SQL {
        """
        SELECT id FROM deliveries
        WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= \(now)
        ORDER BY next_attempt_at LIMIT \(limit)
        """
    }

    /// Everything a worker sends for the deliveries in the JSON array `ids`, as it will be once
    /// claimed (one more attempt), with the device's current state. Every join is by key.
    private static func dueDetails(
        _ ids: String, claimToken: String, leaseExpiry: Date, _ db: SQLiteConnection
    ) throws -> [DueDelivery] {
        try db.query(
            """
            SELECT d.id, d.user_id, d.device_token, d.provider, d.platform, d.environment, d.attempts,
                   d.expires_at, n.id, n.type, n.category, n.title, n.body, n.data, n.deep_link,
                   n.has_detail, n.created_at, n.push, COALESCE(c.unseen, 0),
                   COALESCE(v.active = 1 AND v.user_id = d.user_id, 0)
            FROM deliveries d
            JOIN notifications n ON n.id = d.notification_id
            LEFT JOIN user_counters c ON c.user_id = d.user_id
            LEFT JOIN devices v ON v.token = d.device_token
            WHERE d.id IN (SELECT value FROM json_each(\(ids)))
            """
        ) { row throws(StoreError) in
            let delivery = ClaimedDelivery(
                id: row.text(0), claimToken: claimToken, userID: row.text(1), deviceToken: row.text(2),
                provider: try row.enumValue(PushProvider.self, 3),
                platform: try row.enumValue(DevicePlatform.self, 4),
                environment: try row.enumValue(PushEnvironment.self, 5), attempts: row.int(6) + 1,
                leaseExpiresAt: leaseExpiry, expiresAt: row.optionalDate(7),
                notification: InboxNotification(
                    id: row.text(8), type: row.text(9), category: row.optionalText(10), title: row.text(11),
                    body: row.text(12), data: try row.stringMap(13), deepLink: row.optionalText(14),
                    hasDetail: row.bool(15), createdAt: row.date(16)),
                push: try row.optionalJSON(PushOptions.self, 17), badge: row.int(18))
            return DueDelivery(delivery: delivery, expires: row.optionalInt64(7), deviceLive: row.bool(19))
        }
    }

    /// Ends the deliveries `ids` (unclaimed) as `status` with `reason`.
    private static func finish(
        _ ids: [String], status: DeliveryStatus, reason: String, now: Date, _ db: SQLiteConnection
    ) throws {
        guard !ids.isEmpty else { return }
        try db.execute(
            """
            UPDATE deliveries SET status = \(status.rawValue), reason = \(reason), next_attempt_at = NULL,
                claim_token = NULL, updated_at = \(now)
            WHERE id IN (SELECT value FROM json_each(\(jsonArray(ids))))
            """)
    }
}
