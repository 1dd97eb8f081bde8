import Foundation
import HeraldModel

/// Receipt pollers claim Expo tickets whose receipt is due and record what the receipts said,
/// each in one write transaction.
extension SQLiteStore {
    public func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try write { db in
            let due = try db.query(
                """
                SELECT id FROM deliveries
                WHERE receipt_due_at IS NOT NULL AND receipt_due_at <= \(now)
                ORDER BY receipt_due_at LIMIT \(max(0, limit))
                """
            ) { row in row.text(0) }
            guard !due.isEmpty else { return [] }
            let claimed = try db.query(
                """
                UPDATE deliveries SET receipt_due_at = \(leaseExpiry), receipt_claim_token = \(claimToken)
                WHERE id IN (SELECT value FROM json_each(\(Self.jsonArray(due)))) AND provider_ticket_id IS NOT NULL
                RETURNING id, provider_ticket_id, updated_at, attempts
                """
            ) { row in
                ClaimedReceipt(
                    deliveryID: row.text(0), ticketID: row.text(1), claimToken: claimToken, sentAt: row.date(2),
                    attempts: row.int(3))
            }
            let order = Dictionary(uniqueKeysWithValues: due.enumerated().map { ($0.element, $0.offset) })
            return claimed.sorted { order[$0.deliveryID, default: 0] < order[$1.deliveryID, default: 0] }
        }
    }

    public func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int {
        guard !receipts.isEmpty else { return 0 }
        return try write { db in
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
                    // As a send's retry: one that would fall at or after the TTL expiry expires now.
                    update = """
                        status = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(at)
                                      THEN \(DeliveryStatus.expired.rawValue) ELSE \(DeliveryStatus.queued.rawValue) END,
                        next_attempt_at = CASE WHEN expires_at IS NOT NULL AND expires_at <= \(at)
                                               THEN NULL ELSE \(at) END,
                        reason = \(reason), provider_ticket_id = NULL, receipt_due_at = NULL, updated_at = \(now)
                        """
                }
                let token = try db.queryOne(
                    """
                    UPDATE deliveries SET \(update), receipt_claim_token = NULL
                    WHERE \(claimed) RETURNING device_token
                    """
                ) { row in row.optionalText(0) }
                guard let token else { continue }
                changed += 1
                // A device registered again since the send (the app started, or the token moved
                // to another user) is live by a newer word than this receipt's.
                if case .pruned = outcome.result, let token {
                    try db.execute(
                        """
                        UPDATE devices SET active = 0, updated_at = \(now)
                        WHERE token = \(token) AND updated_at <= \(outcome.receipt.sentAt)
                        """)
                }
            }
            return changed
        }
    }
}
