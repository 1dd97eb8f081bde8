import Foundation
import HeraldModel

/// Broadcasts, through the statements both stores share (``BroadcastStatements``).
extension SQLiteStore {
    public func createBroadcast(
        _ broadcast: NewBroadcast, idempotency claim: IdempotencyClaim?, maxActive: Int?
    ) async throws -> BroadcastCreation {
        try write { db in try BroadcastStatements.create(broadcast, idempotency: claim, maxActive: maxActive, db) }
    }

    public func broadcast(id: String) async throws -> BroadcastRecord? {
        try read { db in try BroadcastStatements.storedBroadcast(db, id: id) }
    }

    public func broadcasts(beforeSeq: Int64?, limit: Int) async throws -> BroadcastPage {
        let limit = min(max(1, limit), 1_000)
        return try read { db in try BroadcastStatements.page(beforeSeq: beforeSeq, limit: limit, db) }
    }

    public func claimBroadcast(now: Date, lease: TimeInterval) async throws -> ClaimedBroadcast? {
        let claimToken = UUID().uuidString.lowercased()
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        let claimed = try write { db in
            try BroadcastStatements.claim(now: now, claimToken: claimToken, leaseExpiry: leaseExpiry, db)
        }
        guard let claimed else { return nil }
        if claimed.needsTotal {
            // Counted on a reader, so the writer is not held while every user is read.
            let known = try read { db in try BroadcastStatements.knownUsersCount(db) }
            try write { db in try BroadcastStatements.setTotal(known, id: claimed.id, claimToken: claimToken, db) }
        }
        return ClaimedBroadcast(id: claimed.id, claimToken: claimToken, leaseExpiresAt: leaseExpiry)
    }

    public func fanOutBroadcastChunk(
        id: String, claimToken: String, limit: Int, catalog: Catalog, now: Date, lease: TimeInterval
    ) async throws -> BroadcastChunk? {
        precondition(limit > 0, "a broadcast chunk must reach at least one user")
        let leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
        return try write { db in
            try BroadcastStatements.fanOutChunk(
                id: id, claimToken: claimToken, limit: limit, catalog: catalog, now: now, leaseExpiry: leaseExpiry,
                db)
        }
    }

    public func releaseBroadcast(id: String, claimToken: String, now: Date) async throws -> Bool {
        try write { db in try BroadcastStatements.release(id: id, claimToken: claimToken, now: now, db) }
    }

    public func failBroadcast(id: String, claimToken: String, reason: String, now: Date) async throws -> Bool {
        try write { db in
            try BroadcastStatements.fail(id: id, claimToken: claimToken, reason: reason, now: now, db)
        }
    }
}
