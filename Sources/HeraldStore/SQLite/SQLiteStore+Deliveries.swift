import Foundation
import HeraldModel

/// The delivery outbox as publishers and workers see it: per-device status and outcomes
/// (claims are in `SQLiteStore+DeliveryClaims.swift`), through ``DeliveryStatements``.
extension SQLiteStore {
    // MARK: Publisher reads

    public func deliveries(notificationID: String) async throws -> [DeliveryRecord] {
        try read { db in try OutboxStatements.deliveries(notificationID: notificationID, db) }
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
        return try write { db in
            try DeliveryStatements.completeAll(completions, now: now, db)
        }
    }
}
