import Foundation
import HeraldHTTPTestSupport
import HeraldLog
import HeraldModel
import HeraldServerModel
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldStore

/// The store's part of live updates across processes: stream events commit in sequence order,
/// and a store's listener hears what any store on the same schema commits.
@Suite(
    "PostgreSQL store: live changes across processes",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresLiveChangeTests {
    @Test("one user's events commit in seq order: a reader resuming after the newest it saw misses none")
    func eventsCommitInSeqOrder() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await PostgresTestDatabase.open(url)
            let publisher = try await PostgresTestDatabase.open(url)
            _ = try await store.publish(
                [note("n0", user: "u1"), note("m0", user: "u2")], catalog: .standard, idempotency: nil)
            // Two transactions hold the counter rows of u1 and u2, as a read or a delete does.
            let first = try PostgresConnection(url: url)
            let second = try PostgresConnection(url: url)
            for (connection, user) in [(first, "u1"), (second, "u2")] {
                try connection.executeUncached("BEGIN")
                _ = try connection.queryOne("SELECT 1 FROM user_counters WHERE user_id = \(user) FOR UPDATE") { _ in 1 }
            }
            // A publish to both users waits for the first, then for the second.
            let racing = Task {
                try await publisher.publish(
                    [note("n1", user: "u1"), note("m1", user: "u2")], catalog: .standard, idempotency: nil)
            }
            try await waitUntilBlocking(first)
            // The first logs an event of u1 and commits while the publish is still open.
            let read = try #require(try InboxStatements.markRead(userID: "u1", id: "n0", at: at(5), first)?.event)
            try first.executeUncached("COMMIT")
            try await waitUntilBlocking(second)

            let seenBefore = try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10)
            #expect(seenBefore.map(\.seq).max() == read.seq)
            try second.executeUncached("COMMIT")
            let published = try #require(try await racing.value.createdEvents)
            let resumed = try await store.streamEvents(userID: "u1", afterSeq: read.seq, limit: 10)
            #expect(resumed.map(\.seq) == published.filter { $0.userID == "u1" }.map(\.seq))
            let everything = try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10)
            #expect(everything == seenBefore + resumed)
        }
    }

    /// Waits until another session waits for a lock `connection` holds.
    private func waitUntilBlocking(_ connection: PostgresConnection) async throws {
        let blocking = try await becomesTrue {
            let blocked = try connection.queryOne(
                "SELECT count(*) AS blocked FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))"
            ) { row throws(StoreError) in try row.int("blocked") }
            return blocked ?? 0 > 0
        }
        try #require(blocking, "the publish never waited for the held counter row")
    }

    @Test("a store's listener hears publishes, reads, deletes and mark-all-seen committed through another store")
    func listenerHearsOtherStores() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let writer = try await PostgresTestDatabase.open(url)
            let listening = try await PostgresTestDatabase.open(url)
            let heard = HeardChanges()
            try listening.startWatchingChanges { heard.append($0) }
            defer { listening.stopWatchingChanges() }
            try await heard.waitFor("the listener's first connection") { $0 == .resync }

            let outcome = try await writer.publish(
                [note("n1", user: "alice"), note("n2", user: "bob")], catalog: .standard, idempotency: nil)
            let seqs = try #require(outcome.createdEvents).map(\.seq)
            try await heard.waitFor("the publish") {
                $0 == .events(userIDs: ["alice", "bob"], throughSeq: seqs.max()!)
            }

            let read = try #require(try await writer.markRead(userID: "alice", id: "n1", at: at(5))?.event)
            try await heard.waitFor("the read") { $0 == .events(userIDs: ["alice"], throughSeq: read.seq) }
            let deleted = try #require(try await writer.delete(userID: "bob", id: "n2", at: at(6))?.event)
            try await heard.waitFor("the delete") { $0 == .events(userIDs: ["bob"], throughSeq: deleted.seq) }
            _ = try await writer.markAllSeen(userID: "alice", at: at(7))
            try await heard.waitFor("the mark-all-seen") { $0 == .counts(userIDs: ["alice"]) }
        }
    }

    @Test("a 1,000-recipient publish is heard for every recipient, in payloads PostgreSQL accepts")
    func largePublishIsHeardForEveryone() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let writer = try await PostgresTestDatabase.open(url)
            let listening = try await PostgresTestDatabase.open(url)
            let heard = HeardChanges()
            try listening.startWatchingChanges { heard.append($0) }
            defer { listening.stopWatchingChanges() }
            try await heard.waitFor("the listener's first connection") { $0 == .resync }

            let users = (0..<1_000).map { _ in "user-\(UUID().uuidString.lowercased())" }
            let outcome = try await writer.publish(
                users.enumerated().map { note("n\($0.offset)", user: $0.element) }, catalog: .standard,
                idempotency: nil)
            let through = try #require(outcome.createdEvents?.map(\.seq).max())
            try await heard.waitUntil("every recipient") { changes in
                let recipients = changes.flatMap { change -> [String] in
                    guard case .events(let userIDs, through) = change else { return [] }
                    return userIDs
                }
                return recipients.count == users.count && Set(recipients) == Set(users)
            }
        }
    }

    @Test("a rolled-back write announces nothing")
    func rollbackAnnouncesNothing() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let writer = try await PostgresTestDatabase.open(url)
            let listening = try await PostgresTestDatabase.open(url)
            let heard = HeardChanges()
            try listening.startWatchingChanges { heard.append($0) }
            defer { listening.stopWatchingChanges() }
            try await heard.waitFor("the listener's first connection") { $0 == .resync }

            let connection = try PostgresConnection(url: url)
            var failed = false
            do {
                try connection.transaction {
                    _ = try InboxStatements.writeNotifications(
                        [note("n1", user: "ghost")], rules: PushRules(catalog: .standard), connection)
                    try connection.executeUncached("SELECT 1 / 0")
                }
            } catch {
                failed = true
            }
            #expect(failed)
            // A later commit is heard; the rolled-back one never was, before or after it.
            _ = try await writer.publish([note("n2", user: "alice")], catalog: .standard, idempotency: nil)
            try await heard.waitFor("the committed publish") {
                if case .events(["alice"], _) = $0 { return true }
                return false
            }
            #expect(
                !heard.all.contains { if case .events(let users, _) = $0 { users.contains("ghost") } else { false } })
        }
    }

    @Test(
        "after its connection is terminated the listener reconnects, reports a resync, hears the next publish and logs the loss"
    )
    func listenerReconnects() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let writer = try await PostgresTestDatabase.open(url)
            let log = CapturingLogHandler()
            let listening = try await PostgresTestDatabase.open(url, logger: log.logger())
            let heard = HeardChanges()
            try listening.startWatchingChanges { heard.append($0) }
            defer { listening.stopWatchingChanges() }
            try await heard.waitFor("the listener's first connection") { $0 == .resync }

            let admin = try PostgresConnection(url: url)
            let terminated = try admin.queryOne(
                """
                SELECT count(pg_terminate_backend(pid)) AS terminated FROM pg_stat_activity
                WHERE application_name = \(PostgresListener.applicationName) || ' ' || current_schema()
                """
            ) { row throws(StoreError) in try row.int("terminated") }
            #expect(terminated == 1)
            try await heard.waitFor("a resync after reconnecting", count: 2) { $0 == .resync }

            let outcome = try await writer.publish([note("n1", user: "alice")], catalog: .standard, idempotency: nil)
            let seq = try #require(outcome.createdEvents?.first?.seq)
            try await heard.waitFor("the publish after reconnecting") {
                $0 == .events(userIDs: ["alice"], throughSeq: seq)
            }
            // The application's logger heard it: a lost session no longer vanishes.
            let lost = log.entries("PostgreSQL listener lost its session; reconnecting and resyncing streams")
            #expect(lost.count == 1)
            #expect(lost.first?.level == .warning)
        }
    }
}

/// What a listener reported, in order.
private final class HeardChanges: Sendable {
    private let changes = Mutex<[LiveChange]>([])

    func append(_ change: LiveChange) { changes.withLock { $0.append(change) } }

    var all: [LiveChange] { changes.withLock { $0 } }

    /// Waits (polling, for a real connection) until `count` reported changes match.
    func waitFor(_ what: String, count: Int = 1, _ matches: (LiveChange) -> Bool) async throws {
        try await waitUntil(what) { $0.filter(matches).count >= count }
    }

    /// Waits (polling) until what was reported so far satisfies `holds`.
    func waitUntil(_ what: String, _ holds: ([LiveChange]) -> Bool) async throws {
        let reported = try await becomesTrue { holds(all) }
        try #require(reported, "the listener never reported \(what): \(all.prefix(10))")
    }
}
