import Foundation
import HeraldModel

/// Inbox rows, their counters and the live-update log, through the statements both stores
/// share (``InboxStatements``); what is SQLite's own here is the index each query pins.
extension SQLiteStore {
    // MARK: Publishing

    public func publish(
        _ notifications: [NewNotification], catalog: Catalog, idempotency claim: IdempotencyClaim?
    ) async throws -> PublishOutcome {
        try write { db in
            try InboxStatements.publish(notifications, catalog: catalog, idempotency: claim, db)
        }
    }

    // MARK: Inbox

    public func renderedInboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws
        -> RenderedInboxPage
    {
        let limit = min(max(1, limit), 1_000)
        let query = Self.pageQuery(userID: userID, category: category, beforeSeq: beforeSeq, limit: limit + 1)
        return try read { db in try InboxStatements.page(query, userID: userID, limit: limit, db) }
    }

    /// One inbox page, newest first: served by `notifications_inbox` (covering: no table reads)
    /// or, with a category, `notifications_inbox_category`, reading only the rows returned.
    /// `INDEXED BY` pins the index: without statistics the planner would also pick the covering
    /// index for a category page, which scans the user's rows of every category.
    static func pageQuery(userID: String, category: String?, beforeSeq: Int64?, limit: Int) -> SQL {
        let index: SQL =
            category == nil
            ? "INDEXED BY notifications_inbox" : "INDEXED BY notifications_inbox_category"
        return InboxStatements.pageQuery(
            userID: userID, category: category, beforeSeq: beforeSeq, limit: limit, index: index)
    }

    public func notification(userID: String, id: String) async throws -> InboxNotification? {
        try read { db in try InboxStatements.notification(userID: userID, id: id, db) }
    }

    public func publishedNotification(id: String) async throws -> StoredNotification? {
        try read { db in try InboxStatements.publishedNotification(id: id, db) }
    }

    public func markRead(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try write { db in try InboxStatements.markRead(userID: userID, id: id, at: at, db) }
    }

    public func markAllSeen(userID: String, at: Date) async throws -> Counts {
        try write { db in
            try InboxStatements.markAllSeen(userID: userID, update: Self.markAllSeenUpdate(userID: userID, at: at), db)
        }
    }

    /// Touches only the user's unseen rows, through `notifications_unseen` (pinned, as above).
    static func markAllSeenUpdate(userID: String, at: Date) -> SQL {
        InboxStatements.markAllSeenUpdate(userID: userID, at: at, index: "INDEXED BY notifications_unseen")
    }

    public func delete(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try write { db in try InboxStatements.delete(userID: userID, id: id, at: at, db) }
    }

    // MARK: Counts

    public func counts(userID: String) async throws -> Counts {
        try read { db in try InboxStatements.counts(db, userID: userID) }
    }

    // MARK: Live-update log

    public func streamEvents(userID: String, afterSeq: Int64, limit: Int) async throws -> [StreamEventRecord] {
        try read { db in try InboxStatements.streamEvents(userID: userID, afterSeq: afterSeq, limit: limit, db) }
    }

    public func latestStreamSeq(userID: String) async throws -> Int64 {
        try read { db in try InboxStatements.latestStreamSeq(userID: userID, db) }
    }

    public func pruneStreamEvents(olderThan: Date) async throws -> Int {
        try pruneInBatches(InboxStatements.pruneStreamEventsBatch(olderThan: olderThan))
    }

    public func pruneIdempotencyKeys(olderThan: Date) async throws -> Int {
        try pruneInBatches(InboxStatements.pruneIdempotencyKeysBatch(olderThan: olderThan, SQLiteConnection.self))
    }

    /// Runs `delete` (which removes at most ``InboxStatements/pruneBatch`` rows) in its own
    /// transactions until nothing is left; answers the rows removed.
    private func pruneInBatches(_ delete: SQL) throws -> Int {
        var total = 0
        while true {
            let removed = try write { db in try db.change(delete) }
            total += removed
            if removed < InboxStatements.pruneBatch { return total }
        }
    }
}
