import Foundation
import HeraldModel

/// The push worker's side of the outbox (delivery claims and outcomes, Expo receipts), through
/// the statements both stores share (``DeliveryStatements``). Workers in several processes
/// claim with `FOR UPDATE SKIP LOCKED`, so a row has one holder at a time.
extension PostgresStore {
    public func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try await write { db in
            try DeliveryStatements.claimDue(
                limit: limit, now: now, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
    }

    public func completeDelivery(id: String, claimToken: String, outcome: DeliveryOutcome, now: Date) async throws
        -> Bool
    {
        try await completeDeliveries([DeliveryCompletion(id: id, claimToken: claimToken, outcome: outcome)], now: now)
            == [true]
    }

    public func completeDeliveries(_ completions: [DeliveryCompletion], now: Date) async throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        return try await write { db in
            try DeliveryStatements.completeAll(completions, now: now, db)
        }
    }

    public func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try await write { db in
            try DeliveryStatements.claimDueReceipts(
                limit: limit, now: now, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
    }

    public func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int {
        guard !receipts.isEmpty else { return 0 }
        return try await write { db in try DeliveryStatements.recordReceipts(receipts, now: now, db) }
    }
}
