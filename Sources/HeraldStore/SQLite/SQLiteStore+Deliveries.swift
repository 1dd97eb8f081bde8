import Foundation
import HeraldModel

/// The delivery outbox as publishers and workers see it: per-device status and outcomes
/// (claims are in `SQLiteStore+DeliveryClaims.swift`).
extension SQLiteStore {
    // MARK: Publisher reads

    public func deliveries(notificationID: String) async throws -> [DeliveryRecord] {
        try read { db in try OutboxStatements.deliveries(notificationID: notificationID, db) }
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
        try await completeDeliveries([DeliveryCompletion(id: id, claimToken: claimToken, outcome: outcome)], now: now)
            == [true]
    }

    public func completeDeliveries(_ completions: [DeliveryCompletion], now: Date) async throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        return try write { db in try completions.map { completion in try Self.complete(completion, now: now, db) } }
    }

    /// Records one outcome inside the caller's transaction; see ``completeDelivery(id:claimToken:outcome:now:)``.
    private static func complete(_ completion: DeliveryCompletion, now: Date, _ db: SQLiteConnection) throws -> Bool {
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
        let prunes = if case .pruned = completion.outcome { true } else { false }
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
