import Foundation
import HeraldModel

/// Inbox rows, their counters and the live-update log, through the statements both stores
/// share (``InboxStatements``). Where another process may change the same rows at once,
/// those statements lock what they read (``StoreConnection/rowLock``).
extension PostgresStore {
    // MARK: Publishing

    public func publish(
        _ notifications: [NewNotification], catalog: Catalog, idempotency claim: IdempotencyClaim?
    ) async throws -> PublishOutcome {
        try await write { db in
            try InboxStatements.publish(notifications, catalog: catalog, idempotency: claim, db)
        }
    }

    // MARK: Inbox

    public func renderedInboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws
        -> RenderedInboxPage
    {
        let limit = min(max(1, limit), 1_000)
        let query = InboxStatements.pageQuery(
            userID: userID, category: category, beforeSeq: beforeSeq, limit: limit + 1, index: "")
        // One transaction, so the page and its counts agree.
        return try await write { db in try InboxStatements.page(query, userID: userID, limit: limit, db) }
    }

    public func notification(userID: String, id: String) async throws -> InboxNotification? {
        try await read { db in try InboxStatements.notification(userID: userID, id: id, db) }
    }

    public func publishedNotification(id: String) async throws -> StoredNotification? {
        try await read { db in try InboxStatements.publishedNotification(id: id, db) }
    }

    public func markRead(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try await write { db in try InboxStatements.markRead(userID: userID, id: id, at: at, db) }
    }

    public func markAllSeen(userID: String, at: Date) async throws -> Counts {
        let update = InboxStatements.markAllSeenUpdate(userID: userID, at: at, index: "")
        return try await write { db in try InboxStatements.markAllSeen(userID: userID, update: update, db) }
    }

    public func delete(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try await write { db in try InboxStatements.delete(userID: userID, id: id, at: at, db) }
    }

    /// The delivery rows of a notification; see ``OutboxStatements/deliveries(notificationID:_:)``.
    public func deliveries(notificationID: String) async throws -> [DeliveryRecord] {
        try await read { db in try OutboxStatements.deliveries(notificationID: notificationID, db) }
    }

    // MARK: Counts

    public func counts(userID: String) async throws -> Counts {
        try await read { db in try InboxStatements.counts(db, userID: userID) }
    }

    // MARK: Live-update log

    public func streamEvents(userID: String, afterSeq: Int64, limit: Int) async throws -> [StreamEventRecord] {
        try await read { db in
            try InboxStatements.streamEvents(userID: userID, afterSeq: afterSeq, limit: limit, db)
        }
    }

    public func latestStreamSeq(userID: String) async throws -> Int64 {
        try await read { db in try InboxStatements.latestStreamSeq(userID: userID, db) }
    }

    public func pruneStreamEvents(olderThan: Date) async throws -> Int {
        try await pruneInBatches(InboxStatements.pruneStreamEventsBatch(olderThan: olderThan))
    }

    public func pruneIdempotencyKeys(olderThan: Date) async throws -> Int {
        try await pruneInBatches(
            InboxStatements.pruneIdempotencyKeysBatch(olderThan: olderThan, PostgresConnection.self))
    }

    /// Runs `delete` (which removes at most ``InboxStatements/pruneBatch`` rows) in its own
    /// transactions until nothing is left; answers the rows removed.
    private func pruneInBatches(_ delete: SQL) async throws -> Int {
        var total = 0
        while true {
            let removed = try await write { db in try db.change(delete) }
            total += removed
            if removed < InboxStatements.pruneBatch { return total }
        }
    }
}
