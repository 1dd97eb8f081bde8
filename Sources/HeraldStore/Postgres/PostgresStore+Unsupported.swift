import Foundation
import HeraldModel

/// The store operations the PostgreSQL store does not implement yet: each throws
/// ``StoreError/Code/unsupported`` naming itself, so a caller fails loudly instead of reading
/// an empty answer. `herald serve` refuses a PostgreSQL URL until this file is gone.
extension PostgresStore {
    /// What a server needs that this store lacks, for the error `herald serve` gives.
    public static let missingOperations =
        "delivery and receipt claims and their outcomes (the push worker), and broadcasts"

    private func unsupported(_ operation: String) -> StoreError {
        StoreError(code: .unsupported, message: "the PostgreSQL store does not implement \(operation) yet")
    }

    public func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        throw unsupported("claimDueDeliveries")
    }

    public func completeDelivery(id: String, claimToken: String, outcome: DeliveryOutcome, now: Date) async throws
        -> Bool
    { throw unsupported("completeDelivery") }

    public func completeDeliveries(_ completions: [DeliveryCompletion], now: Date) async throws -> [Bool] {
        throw unsupported("completeDeliveries")
    }

    public func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt] {
        throw unsupported("claimDueReceipts")
    }

    public func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int {
        throw unsupported("recordReceipts")
    }

    public func createBroadcast(_ broadcast: NewBroadcast, idempotency: IdempotencyClaim?) async throws
        -> BroadcastCreation
    { throw unsupported("createBroadcast") }

    public func broadcast(id: String) async throws -> BroadcastRecord? { throw unsupported("broadcast") }

    public func broadcasts(beforeSeq: Int64?, limit: Int) async throws -> BroadcastPage {
        throw unsupported("broadcasts")
    }

    public func claimBroadcast(now: Date, lease: TimeInterval) async throws -> ClaimedBroadcast? {
        throw unsupported("claimBroadcast")
    }

    public func fanOutBroadcastChunk(
        id: String, claimToken: String, limit: Int, catalog: Catalog, now: Date, lease: TimeInterval
    ) async throws -> BroadcastChunk? { throw unsupported("fanOutBroadcastChunk") }

    public func releaseBroadcast(id: String, claimToken: String, now: Date) async throws -> Bool {
        throw unsupported("releaseBroadcast")
    }

    public func failBroadcast(id: String, claimToken: String, reason: String, now: Date) async throws -> Bool {
        throw unsupported("failBroadcast")
    }
}
