import Dispatch
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldThreads
import Synchronization
import Testing

@testable import HeraldStore

/// The PostgreSQL store's connection pool on a real server: the bound, the wait for a free
/// connection, and what happens to calls whose session the server ends.
@Suite(
    "PostgreSQL store: connection pool",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresPoolTests {
    @Test("more concurrent transactions than connections all complete, never more than the pool size at once")
    func boundedConcurrency() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let timer = ManualTimer()
            let store = try await open(url, size: 2, timer: timer)
            let gate = DispatchSemaphore(value: 0)
            let inside = Locked((now: 0, peak: 0))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await store.write { db in
                            inside.withLock { $0 = (now: $0.now + 1, peak: max($0.peak, $0.now + 1)) }
                            defer { inside.withLock { $0.now -= 1 } }
                            // Blocks this connection's own queue, never a cooperative thread.
                            gate.wait()
                            try AccountStatements.createAPIKey(
                                APIKeyRecord(id: "k\(index)", name: "n", hash: "h\(index)", createdAt: t0), db)
                        }
                    }
                }
                try await eventually("two transactions run and eight wait", within: .seconds(20)) {
                    inside.withLock { $0.now } == 2 && store.pool.waitingCount == 8
                }
                for _ in 0..<10 { gate.signal() }
                try await group.waitForAll()
            }
            #expect(inside.withLock { $0.peak } == 2)
            #expect(store.pool.openedCount == 2)
            #expect(store.pool.waitingCount == 0)
            for index in 0..<10 { #expect(try await store.apiKey(hash: "h\(index)")?.id == "k\(index)") }
        }
    }

    @Test("a call that finds every connection busy until the checkout timeout fails as unavailable, without hanging")
    func checkoutTimeout() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let timer = ManualTimer()
            let store = try await open(url, size: 1, timer: timer)
            let gate = DispatchSemaphore(value: 0)
            let holding = Locked(false)
            let holder = Task {
                try await store.write { db in
                    holding.withLock { $0 = true }
                    gate.wait()
                    try AccountStatements.ping(db)
                }
            }
            try await eventually("the only connection is taken", within: .seconds(20)) { holding.withLock { $0 } }
            let waiter = Task { try await store.counts(userID: "u1") }
            try await eventually("a second call waits", within: .seconds(20)) { store.pool.waitingCount == 1 }
            #expect(timer.pendingDelays == [.seconds(5)])
            timer.fireAll()
            let error = try await #require(throws: StoreError.self) { try await waiter.value }
            #expect(error.code == .unavailable)
            #expect(error.message.contains("no PostgreSQL connection was free"))
            gate.signal()
            try await holder.value
            // The connection came back: the next call gets it, and nobody was left waiting.
            #expect(try await store.counts(userID: "u1") == counts(0, 0))
            #expect(store.pool.openedCount == 1)
            #expect(store.pool.waitingCount == 0)
        }
    }

    @Test("idle sessions the server ended are replaced before use: reads and writes on the next call succeed")
    func idleSessionsReplaced() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let name = "herald_pool_" + UUID().uuidString.prefix(8).lowercased()
            let store = try await open(url + "&application_name=\(name)", size: 2, timer: ManualTimer())
            try await publish(store, ids: ["n1"])
            try await terminateSessions(applicationName: name)
            try await publish(store, ids: ["n2"])
            #expect(try await store.counts(userID: "u1") == counts(2, 2))
            #expect(store.pool.openedCount == 1)
        }
    }

    @Test("a transaction whose session ends after BEGIN fails as unavailable, runs once, and commits nothing")
    func lostTransactionIsNotRetried() async throws {
        try await PostgresTestDatabase.withStore { store in
            let runs = Locked(0)
            let error = try await #require(throws: StoreError.self) {
                try await store.write { db in
                    runs.withLock { $0 += 1 }
                    try AccountStatements.createAPIKey(APIKeyRecord(id: "k1", name: "a", hash: "h1", createdAt: t0), db)
                    try db.execute("SELECT pg_terminate_backend(pg_backend_pid())")
                }
            }
            #expect(error.code == .unavailable)
            #expect(runs.withLock { $0 } == 1)
            #expect(try await store.apiKey(hash: "h1") == nil)
            try await store.createAPIKey(APIKeyRecord(id: "k2", name: "b", hash: "h2", createdAt: t0))
            #expect(try await store.apiKey(hash: "h2")?.id == "k2")
        }
    }

    @Test("a read whose session ends under it runs once more on a new session; losing that one too fails it")
    func lostReadRunsOnceMore() async throws {
        try await PostgresTestDatabase.withStore { store in
            let runs = Locked(0)
            let answer = try await store.read { db in
                if runs.withLock({ run in
                    run += 1
                    return run == 1
                }) {
                    try db.execute("SELECT pg_terminate_backend(pg_backend_pid())")
                }
                return try db.queryOne("SELECT 42 AS answer") { row throws(StoreError) in try row.int("answer") }
            }
            #expect(answer == 42)
            #expect(runs.withLock { $0 } == 2)

            runs.withLock { $0 = 0 }
            let error = try await #require(throws: StoreError.self) {
                try await store.read { db in
                    runs.withLock { $0 += 1 }
                    try db.execute("SELECT pg_terminate_backend(pg_backend_pid())")
                }
            }
            #expect(error.code == .unavailable)
            #expect(runs.withLock { $0 } == 2)
            try await store.ping()
        }
    }

    // MARK: Helpers

    private func open(_ url: String, size: Int, timer: ManualTimer) async throws -> PostgresStore {
        try await offCooperativePool {
            try PostgresStore.open(url: url, pool: PostgresPoolSettings(size: size), timer: timer.timer)
        }
    }

    /// Ends every session named `applicationName`, from a session of its own, and waits until
    /// the server has let them go.
    private func terminateSessions(applicationName: String) async throws {
        let base = try #require(PostgresTestDatabase.url)
        try await offCooperativePool {
            let admin = try PostgresConnection(url: base)
            try admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(applicationName)")
        }
        try await eventually("the sessions are gone", within: .seconds(20)) {
            try await offCooperativePool {
                try PostgresConnection(url: base).queryOne(
                    "SELECT count(*) AS sessions FROM pg_stat_activity WHERE application_name = \(applicationName)"
                ) { row throws(StoreError) in try row.int("sessions") } == 0
            }
        }
    }
}

/// A value behind a lock that escaping closures can share.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { value in body(&value) }
    }
}

/// Ends pool waits only when a test says so, and remembers the delays it was asked for; its
/// time moves only when a test advances it.
final class ManualTimer: Sendable {
    private let pending = Mutex<[(delay: Duration, action: @Sendable () -> Void)]>([])
    private let clock = Mutex(ContinuousClock.now)

    var timer: PostgresPoolTimer {
        PostgresPoolTimer(
            after: { delay, action in self.pending.withLock { $0.append((delay, action)) } },
            now: { self.clock.withLock { $0 } })
    }

    func advance(by duration: Duration) {
        clock.withLock { $0 += duration }
    }

    var pendingDelays: [Duration] { pending.withLock { $0.map(\.delay) } }

    /// Runs every pending action now.
    func fireAll() {
        let due = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        for entry in due { entry.action() }
    }
}
