import Foundation
import HeraldModel

/// Receipt pollers claim Expo tickets whose receipt is due and record what the receipts said,
/// each in one write transaction (see ``DeliveryStatements``).
extension SQLiteStore {
    public func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try write { db in
            try DeliveryStatements.claimDueReceipts(
                limit: limit, now: now, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
    }

    public func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int {
        guard !receipts.isEmpty else { return 0 }
        return try write { db in try DeliveryStatements.recordReceipts(receipts, now: now, db) }
    }
}
