import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Digests: pushes held for a user's digest (delivery rows `digested`, no `digest_id` yet) go out
/// as one summary push at the user's digest time. `digest_schedule` says when each user's next
/// summary is due; a run claims due users, writes each one's summary (a `digests` row and its
/// delivery rows, kind `digest`) and marks what it sums up. Statements both stores run inside the
/// caller's transaction.
enum DigestStatements {
    /// The `type` a summary push carries in its data (and in logs).
    static let summaryType = "herald.digest"

    /// `userID`'s next summary is due at `at`, unless one is due sooner.
    static func schedule(userID: String, at: Date, _ db: some StoreConnection) throws {
        try db.execute(
            """
            INSERT INTO digest_schedule (user_id, due_at) VALUES (\(userID), \(at))
            ON CONFLICT (user_id) DO UPDATE SET due_at = CASE
                WHEN excluded.due_at < digest_schedule.due_at THEN excluded.due_at ELSE digest_schedule.due_at END
            """)
    }

    /// Moves `userID`'s pending summary to `at` (the digest's time changed, or it was turned off:
    /// then now); answers whether one was pending.
    static func reschedule(userID: String, at: Date, _ db: some StoreConnection) throws -> Bool {
        try db.change("UPDATE digest_schedule SET due_at = \(at) WHERE user_id = \(userID)") > 0
    }

    /// When the earliest pending summary is due; nil when none is pending.
    static func nextDue(_ db: some StoreConnection) throws -> Date? {
        try db.queryOne("SELECT MIN(due_at) AS due FROM digest_schedule") { row throws(StoreError) in
            try row.optionalDate("due")
        } ?? nil
    }

    /// Writes the summaries of at most `limit` users whose digest is due at `now`; users another
    /// server is summing up at this moment are skipped (``StoreConnection/claimLock``).
    static func runDue<DB: StoreConnection>(
        limit: Int, template: DigestTemplate, catalog: Catalog, now: Date, _ db: DB
    ) throws -> DigestRun {
        let users = try db.query(
            """
            SELECT user_id FROM digest_schedule WHERE due_at <= \(now)
            ORDER BY due_at, user_id LIMIT \(max(0, limit)) \(DB.claimLock)
            """
        ) { row throws(StoreError) in try row.text("user_id") }
        var run = DigestRun()
        for userID in users {
            try db.execute("DELETE FROM digest_schedule WHERE user_id = \(userID)")
            if try summarize(userID: userID, template: template, catalog: catalog, now: now, db) {
                run.summaries += 1
            }
        }
        return run
    }

    /// Writes `userID`'s summary of what their digest holds; false when it holds nothing.
    private static func summarize<DB: StoreConnection>(
        userID: String, template: DigestTemplate, catalog: Catalog, now: Date, _ db: DB
    ) throws -> Bool {
        let held = try db.query(
            """
            SELECT d.id AS delivery_id, n.id AS notification_id, n.title AS title, n.seq AS seq
            FROM deliveries d JOIN notifications n ON n.id = d.notification_id
            WHERE d.user_id = \(userID) AND d.status = \(DeliveryStatus.digested.rawValue) AND d.digest_id IS NULL
              AND d.kind = \(DeliveryKind.notification)
            ORDER BY n.seq DESC
            """
        ) { row throws(StoreError) in
            try (delivery: row.text("delivery_id"), notification: row.text("notification_id"), title: row.text("title"))
        }
        guard !held.isEmpty else { return false }
        var titles: [String] = []
        var seen: Set<String> = []
        for item in held where seen.insert(item.notification).inserted { titles.append(item.title) }
        let text = template.rendered(count: titles.count, titles: titles)
        var random = SystemRandomNumberGenerator()
        let digestID = "dig_" + TimeOrderedID.make(using: &random)
        try db.execute(
            """
            INSERT INTO digests (id, user_id, title, body, count, created_at)
            VALUES (\(digestID), \(userID), \(text.title), \(text.body),
                    \(titles.count), \(now))
            """)
        try db.execute(
            """
            UPDATE deliveries SET digest_id = \(digestID), updated_at = \(now)
            WHERE id IN (\(DB.jsonTextElements(DeliveryStatements.jsonArray(held.map(\.delivery)))))
            """)
        try OutboxStatements.writeSummaryRows(digestID: digestID, userID: userID, catalog: catalog, now: now, db)
        return true
    }
}

/// What one digest run wrote.
public struct DigestRun: Sendable, Equatable {
    /// Summaries written (each with its delivery rows).
    public var summaries = 0
    public init(summaries: Int = 0) { self.summaries = summaries }
}
