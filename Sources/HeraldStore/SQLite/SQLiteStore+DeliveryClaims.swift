import Foundation
import HeraldModel

/// Workers claim due deliveries here, in one write transaction per claim (see
/// ``DeliveryStatements``).
extension SQLiteStore {
    public func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try write { db in
            try DeliveryStatements.claimDue(
                limit: limit, now: now, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
    }

}
