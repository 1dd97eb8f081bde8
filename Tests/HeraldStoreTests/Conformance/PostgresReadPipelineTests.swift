import Dispatch
import Foundation
import HeraldModel
import HeraldTestSupport
import HeraldThreads
import Testing

@testable import HeraldStore

/// One-statement reads sent together in libpq's pipeline mode (``PostgresReadPipeline``), on a
/// real server: what waits goes in one batch, each read gets its own answer or error, and a
/// lost session runs the batch once more.
@Suite(
    "PostgreSQL store: read pipelines",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresReadPipelineTests {
    @Test("reads waiting for the only connection go out together, and each page is the one a read sent alone gets")
    func waitingReadsGoTogether() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 1, depth: 16)
            let alone = try await open(url, size: 1, depth: 1)
            for user in 0..<5 {
                try await publish(store, ids: (0..<(3 + user)).map { "n\(user)-\($0)" }, user: "u\(user)")
            }
            _ = try await store.markRead(userID: "u2", id: "n2-1", at: at(100))
            let reads = (0..<20).map { index in (user: "u\(index % 6)", limit: 1 + index % 4) }

            let answered = try await waitingTogether(store, reads.count) { index in
                try await store.renderedInboxPage(
                    userID: reads[index].user, category: nil, beforeSeq: nil, limit: reads[index].limit)
            }
            // The first read alone (see `waitingTogether`), then the other 20 in batches of at
            // most 16 on the same connection, the pool's only one.
            #expect(
                store.readPipeline.statistics
                    == PostgresReadPipeline.Statistics(batches: 3, statements: 21, largestBatch: 16))
            for (index, read) in reads.enumerated() {
                let expected = try await alone.renderedInboxPage(
                    userID: read.user, category: nil, beforeSeq: nil, limit: read.limit)
                #expect(answered[index] == expected, "read \(index) of \(read.user)")
            }
            #expect(alone.readPipeline.statistics.largestBatch == 1)
            #expect(answered[2].counts == counts(4, 4))
            #expect(answered[2].items.count == 3 && answered[2].hasMore)
            #expect(answered[5].items.isEmpty && answered[5].counts == counts(0, 0))
        }
    }

    @Test("a live stream's reads (counts, catch-up, latest seq) go through the pipeline, as the inbox page does")
    func streamReadsArePipelined() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 2, depth: 16)
            try await publish(store, ids: ["n1", "n2", "n3"])
            let before = store.readPipeline.statistics.statements
            #expect(try await store.counts(userID: "u1") == counts(3, 3))
            #expect(try await store.counts(userID: "nobody") == counts(0, 0))
            let events = try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 2)
            #expect(events.count == 2 && events.allSatisfy { $0.userID == "u1" && $0.seq > 0 })
            let latest = try await store.latestStreamSeq(userID: "u1")
            #expect(try await store.streamEvents(userID: "u1", afterSeq: latest, limit: 10).isEmpty)
            #expect(try await store.latestStreamSeq(userID: "nobody") == 0)
            #expect(store.readPipeline.statistics.statements - before == 6)
        }
    }

    @Test("a failing statement fails alone: the reads after it in its pipeline run again and answer")
    func aFailureFailsAlone() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 1, depth: 16)
            let statements: [SQL] = [
                "SELECT 1 AS n", "SELECT n FROM no_such_table", "SELECT 3 AS n",
                "SELECT 1 / (n - 4) AS n FROM (SELECT 4 AS n) t",
                "SELECT 5 AS n",
            ]
            let answered = try await together(store, statements)
            // One read taken alone first (see `together`), then the five together.
            #expect(store.readPipeline.statistics == .init(batches: 2, statements: 6, largestBatch: 5))
            #expect(try answered[0].get() == [1])
            #expect(try answered[2].get() == [3])
            #expect(try answered[4].get() == [5])
            guard case .failure(let missing) = answered[1], case .failure(let division) = answered[3] else {
                Issue.record("the failing statements answered \(answered[1]) and \(answered[3])")
                return
            }
            #expect(missing.code == .postgres && missing.sqlState == "42P01")
            #expect(division.code == .postgres && division.sqlState == "22012")
            // The session is still good for the next pipeline.
            #expect(try await numbers(store, "SELECT 6 AS n") == [6])
            #expect(store.pool.openedCount == 1)
        }
    }

    @Test(
        "a pipeline whose session ends under it runs once more on a new session; losing that one too fails every read in it"
    )
    func lostPipelineRunsOnceMore() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 1, depth: 16)
            try await store.write { db in try db.executeUncached("CREATE SEQUENCE kills") }
            // Ends its own session the first time it runs.
            let killOnce: SQL =
                "SELECT COALESCE((SELECT 0 WHERE nextval('kills') = 1 AND pg_terminate_backend(pg_backend_pid())), 2) AS n"
            let statements: [SQL] = ["SELECT 1 AS n", killOnce, "SELECT 3 AS n"]
            #expect(try await together(store, statements).map { try $0.get() } == [[1], [2], [3]])
            #expect(try await numbers(store, "SELECT last_value::int AS n FROM kills") == [2])

            // The session ends in the second round of a pipeline: the statements the server
            // skipped after the division by zero. The whole batch runs again on a new session.
            try await store.write { db in try db.executeUncached("CREATE SEQUENCE kills_later") }
            let killLater: SQL =
                "SELECT COALESCE((SELECT 0 WHERE nextval('kills_later') = 1 AND pg_terminate_backend(pg_backend_pid())), 2) AS n"
            let rerun = try await together(store, ["SELECT 1 / 0 AS n", killLater, "SELECT 3 AS n"])
            #expect(rerun.count == 3)
            if case .failure(let division) = rerun[0] {
                #expect(division.code == .postgres && division.sqlState == "22012")
            } else {
                Issue.record("the division by zero answered \(rerun[0])")
            }
            #expect(try rerun[1].get() == [2])
            #expect(try rerun[2].get() == [3])

            let killAlways: SQL = "SELECT 0 AS n WHERE pg_terminate_backend(pg_backend_pid())"
            let failed = try await together(store, ["SELECT 1 AS n", killAlways, "SELECT 3 AS n"])
            for answer in failed {
                guard case .failure(let error) = answer else {
                    Issue.record("a read in a lost pipeline answered \(answer)")
                    continue
                }
                #expect(error.code == .unavailable)
            }
            #expect(try await numbers(store, "SELECT 7 AS n") == [7])
        }
    }

    @Test("a lost batch whose second go finds no connection in time fails, without trying again")
    func lostBatchRetriesOnce() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let timer = ManualTimer()
            let store = try await open(url, size: 1, depth: 16, timer: timer)
            let release = try await holdAConnection(store)
            let killed = Locked<String?>(nil)  // how the read ended
            Task {
                do {
                    let rows = try await numbers(store, "SELECT 0 AS n WHERE pg_terminate_backend(pg_backend_pid())")
                    killed.withLock { $0 = "answered \(rows)" }
                } catch let error as StoreError {
                    killed.withLock { $0 = "\(error.code)" }
                } catch {
                    killed.withLock { $0 = "\(error)" }
                }
            }
            try await eventually("the read waits for the connection", within: .seconds(20)) {
                store.pool.waitingCount == 1
            }
            // A write queues behind it, and gets the connection when the read's session is lost.
            let gate = DispatchSemaphore(value: 0)
            let write = Task {
                try await store.write { db in
                    gate.wait()
                    try db.execute("SELECT 1")
                }
            }
            try await eventually("the write waits too", within: .seconds(20)) { store.pool.waitingCount == 2 }
            release()
            // Three waits asked for: the read's first, the write's, and the lost batch's second go.
            try await eventually("the lost batch waits for a connection again", within: .seconds(20)) {
                store.pool.waitingCount == 1 && timer.pendingDelays.count == 3
            }
            timer.fireAll()
            try await eventually("the read fails", within: .seconds(20)) { killed.withLock { $0 } != nil }
            #expect(timer.pendingDelays.isEmpty)
            #expect(killed.withLock { $0 } == "\(StoreError.Code.unavailable)")
            gate.signal()
            try await write.value
            #expect(try await numbers(store, "SELECT 7 AS n") == [7])
        }
    }

    @Test("a read goes out at once on a free connection: batches form only when every connection is busy")
    func freeConnectionFirst() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 2, depth: 16)
            let release = try await holdAConnection(store)
            // One connection is held (a slow call); the read gets the other without waiting for it.
            #expect(try await numbers(store, "SELECT 1 AS n") == [1])
            #expect(store.pool.openedCount == 2)
            release()
        }
    }

    @Test("a read waits for a connection at most the checkout timeout, counted from when it was queued")
    func waitIsBounded() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let timer = ManualTimer()
            let store = try await open(url, size: 1, depth: 16, timer: timer)
            let release = try await holdAConnection(store)
            let first = Task { try await numbers(store, "SELECT 1 AS n") }
            try await eventually("the first read waits for the connection", within: .seconds(20)) {
                timer.pendingDelays == [.seconds(5)]
            }
            let second = Task { try await numbers(store, "SELECT 2 AS n") }
            try await eventually("the second read is queued", within: .seconds(20)) {
                store.readPipeline.waitingCount == 1
            }
            // The first read's wait ends; the second has waited as long, and fails without
            // waiting for the connection again.
            timer.advance(by: .seconds(5))
            timer.fireAll()
            for read in [first, second] {
                let error = try await #require(throws: StoreError.self) { try await read.value }
                #expect(error.code == .unavailable)
                #expect(error.message.contains("no PostgreSQL connection was free within 5"))
            }
            #expect(timer.pendingDelays.isEmpty)
            // A read queued later waits only what it has left.
            let third = Task { try await numbers(store, "SELECT 3 AS n") }
            try await eventually("the third read waits", within: .seconds(20)) { !timer.pendingDelays.isEmpty }
            #expect(timer.pendingDelays == [.seconds(5)])
            release()
            #expect(try await third.value == [3])
        }
    }

    @Test("a connection sending batches goes back to the pool between two when another call waits for one")
    func batchesLetOthersIn() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 1, depth: 16)
            let (release, first) = try await holdWithAFirstRead(store)
            // Its rows are read on the connection's queue, before the call resumes.
            let laterRead = Locked(false)
            let later = Task {
                try await store.readStatement("SELECT 2 AS n", capacity: 1) { row throws(StoreError) in
                    laterRead.withLock { $0 = true }
                    return try row.int("n")
                }
            }
            try await eventually("a second read is queued", within: .seconds(20)) {
                store.readPipeline.waitingCount == 1
            }
            let laterReadBeforeWrite = Locked<Bool?>(nil)
            let write = Task {
                try await store.write { db in
                    laterReadBeforeWrite.withLock { $0 = laterRead.withLock { $0 } }
                    try db.execute("SELECT 1")
                }
            }
            try await eventually("the write waits for the connection", within: .seconds(20)) {
                store.pool.waitingCount == 2
            }
            release()
            try await write.value
            #expect(try await first.value == [1])
            #expect(try await later.value == [2])
            // The write ran after the first batch and before the second.
            #expect(laterReadBeforeWrite.withLock { $0 } == false)
        }
    }

    @Test("a queued read whose task is cancelled leaves the queue at once; the others still answer")
    func cancelledReadLeaves() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let store = try await open(url, size: 1, depth: 16)
            let (release, first) = try await holdWithAFirstRead(store)
            let cancelled = Task { try await numbers(store, "SELECT 2 AS n") }
            let kept = Task { try await numbers(store, "SELECT 3 AS n") }
            try await eventually("two reads are queued", within: .seconds(20)) { store.readPipeline.waitingCount == 2 }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(store.readPipeline.waitingCount == 1)
            release()
            #expect(try await first.value == [1])
            #expect(try await kept.value == [3])
            #expect(store.readPipeline.statistics.statements == 2)
        }
    }

    // MARK: Helpers

    /// A store whose waits for a connection end only when `timer` says so.
    private func open(_ url: String, size: Int, depth: Int, timer: ManualTimer = ManualTimer()) async throws
        -> PostgresStore
    {
        try await offCooperativePool {
            try PostgresStore.open(
                url: url, pool: PostgresPoolSettings(size: size, pipelineDepth: depth), timer: timer.timer)
        }
    }

    /// Takes a connection of the pool until the answered closure is called.
    private func holdAConnection(_ store: PostgresStore) async throws -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        let holding = Locked(false)
        Task {
            try await store.read { _ in
                holding.withLock { $0 = true }
                // Blocks this connection's own queue, never a cooperative thread.
                gate.wait()
            }
        }
        try await eventually("a connection is taken", within: .seconds(20)) { holding.withLock { $0 } }
        return { gate.signal() }
    }

    /// Holds the only connection and sends a first read (`SELECT 1`), which a drain takes at once
    /// and keeps while it waits for the connection: reads sent after it wait in the pipeline.
    private func holdWithAFirstRead(_ store: PostgresStore) async throws
        -> (release: @Sendable () -> Void, first: Task<[Int], any Error>)
    {
        let release = try await holdAConnection(store)
        let before = store.readPipeline.statistics.statements
        let first = Task { try await numbers(store, "SELECT 1 AS n") }
        try await eventually("the first read is taken", within: .seconds(20)) {
            store.readPipeline.statistics.statements == before + 1
        }
        return (release, first)
    }

    private func numbers(_ store: PostgresStore, _ sql: SQL) async throws -> [Int] {
        try await store.readStatement(sql, capacity: 1) { row throws(StoreError) in try row.int("n") }
    }

    /// `statements` sent in one pipeline, each answering its numbers or its error.
    private func together(_ store: PostgresStore, _ statements: [SQL]) async throws -> [Result<[Int], StoreError>] {
        try await waitingTogether(store, statements.count) { index in
            do {
                return .success(try await numbers(store, statements[index]))
            } catch let error as StoreError {
                return .failure(error)
            }
        }
    }

    /// Runs `count` reads, queued in order while the only connection is held, answering them in
    /// order: a first read goes before them (a new drain takes what waits at once: that one,
    /// alone), and the connection is let go once all `count` wait.
    private func waitingTogether<T: Sendable>(
        _ store: PostgresStore, _ count: Int, _ read: @escaping @Sendable (Int) async throws -> T
    ) async throws -> [T] {
        let before = store.readPipeline.statistics.statements
        let (release, first) = try await holdWithAFirstRead(store)
        let answers = Task {
            try await withThrowingTaskGroup(of: (Int, T).self) { group in
                // One at a time, so they wait (and go out) in this order.
                for index in 0..<count {
                    group.addTask { (index, try await read(index)) }
                    try await eventually("read \(index) waits or is taken", within: .seconds(20)) {
                        store.readPipeline.statistics.statements + store.readPipeline.waitingCount
                            == before + 2 + index
                    }
                }
                var answers: [Int: T] = [:]
                for try await (index, answer) in group { answers[index] = answer }
                return (0..<count).compactMap { answers[$0] }
            }
        }
        try await eventually("every read waits or is taken", within: .seconds(20)) {
            store.readPipeline.statistics.statements + store.readPipeline.waitingCount == before + 1 + count
        }
        release()
        #expect(try await first.value == [1])
        return try await answers.value
    }
}
