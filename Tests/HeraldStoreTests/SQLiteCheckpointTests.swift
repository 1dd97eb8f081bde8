import Foundation
import HeraldTestSupport
import Testing

@testable import HeraldStore

/// The WAL is copied back by the checkpointer's own connection, and starts again from its
/// beginning, so it stays short without the writer copying it inside its writes.
@Suite("SQLite checkpoints")
struct SQLiteCheckpointTests {
    /// Pages the tests' checkpointer lets the WAL reach before it copies it back.
    static let threshold = 16

    /// Writes `count` transactions of one 6 KB row each (two pages or more per commit).
    private func write(_ count: Int, to pool: SQLiteConnectionPool, settling: Bool) async throws {
        let blob = String(repeating: "x", count: 6_000)
        for index in 0..<count {
            try await pool.write { db in try db.execute("INSERT INTO filler (n, blob) VALUES (\(index), \(blob))") }
            if settling { try await pool.checkpointer?.settle() }
        }
    }

    /// A pool on a fresh file in a temporary directory (removed afterwards), with the tests'
    /// checkpoint threshold and an empty `filler` table; `body` also gets the file's path.
    private func withFillerPool(_ body: (SQLiteConnectionPool, String) async throws -> Void) async throws {
        try await withTemporaryDirectory("herald-checkpoint") { directory in
            let path = directory.path("wal.db")
            let pool = try SQLiteConnectionPool(path: path, readers: 1, checkpointPages: Self.threshold)
            try pool.withWriterBlocking { db in try db.executeUncached("CREATE TABLE filler (n INTEGER, blob TEXT)") }
            try await body(pool, path)
        }
    }

    private func rowCount(_ pool: SQLiteConnectionPool) async throws -> Int64? {
        try await pool.read(snapshot: false) { db in
            try db.queryOne("SELECT count(*) AS rows FROM filler") { row throws(StoreError) in
                try row.int64("rows")
            }
        }
    }

    private func walPages(_ path: String) throws -> Int {
        let size = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        return max(0, size - 32) / (4_096 + 24)  // the WAL header, then a 24-byte header per frame
    }

    @Test("a long WAL is copied back in the background and starts again; the rows are all there")
    func walIsCopiedBackInTheBackground() async throws {
        try await withFillerPool { pool, path in
            try await write(300, to: pool, settling: true)
            let checkpoints = try #require(pool.checkpointer).checkpoints
            #expect(checkpoints.background > 0)
            // The background copied everything each time, so the writer never had to.
            #expect(checkpoints.onWriter == 0)
            // Without a checkpoint the WAL would hold every commit: 300 rows of two pages or more.
            #expect(try walPages(path) <= 2 * Self.threshold)
            let rows = try await rowCount(pool)
            #expect(rows == 300)
            let check = try await pool.read(snapshot: false) { db in
                try db.queryOne("PRAGMA integrity_check") { row throws(StoreError) in try row.text("integrity_check") }
            }
            #expect(check == "ok")
        }
    }

    @Test("writes that never wait for the checkpointer keep the WAL within four times the threshold")
    func writerBoundsTheWAL() async throws {
        try await withFillerPool { pool, path in
            try await write(500, to: pool, settling: false)
            // At four times the threshold the writer waits for the background checkpoint and
            // copies the rest; the WAL then starts again. One commit is at most 5 pages here.
            #expect(try walPages(path) <= 4 * Self.threshold + 8)
            try await pool.checkpointer?.settle()
            let rows = try await rowCount(pool)
            #expect(rows == 500)
        }
    }

    // MARK: The writer's decision after each commit

    typealias State = SQLiteCheckpointer.State

    private func decide(_ walPages: Int, _ state: inout State, pages: Int = 1_000) -> SQLiteCheckpointer.Action {
        SQLiteCheckpointer.decide(walPages: walPages, pages: pages, &state)
    }

    @Test("below the threshold nothing happens; past it one background checkpoint is queued at a time")
    func oneBackgroundCheckpointAtATime() {
        var state = State()
        #expect(decide(999, &state) == .nothing)
        #expect(decide(1_200, &state) == .background)
        #expect(state.queued)
        #expect(decide(1_500, &state) == .nothing)
        state.queued = false  // it ran, copying nothing (a reader held every frame)
        #expect(decide(1_800, &state) == .background)
    }

    @Test("when the background has left little, the writer copies the rest itself")
    func writerFinishesWhatLittleIsLeft() {
        // The background copied 1,200 frames; the WAL then grew by one small commit.
        var state = State(walPages: 1_200, generation: 0, copied: 1_200, queued: false)
        #expect(decide(1_300, &state) == .finish)
        // Left behind by more than an eighth of the threshold and more than the last commit:
        // queued again instead.
        state = State(walPages: 2_000, generation: 0, copied: 1_200, queued: false)
        #expect(decide(2_100, &state) == .background)
        // As much as the last commit wrote (a large one) is finished too.
        state = State(walPages: 1_200, generation: 0, copied: 1_200, queued: false)
        #expect(decide(2_500, &state) == .finish)
        // Not while a background checkpoint is queued or running: it holds the checkpoint lock.
        state = State(walPages: 1_200, generation: 0, copied: 1_200, queued: true)
        #expect(decide(1_300, &state) == .nothing)
    }

    @Test("a WAL that started again has nothing copied: an older count is forgotten")
    func restartForgetsTheOldCount() {
        var state = State(walPages: 3_000, generation: 4, copied: 3_000, queued: false)
        #expect(decide(40, &state) == .nothing)
        #expect(state.generation == 5)
        #expect(state.copied == 0)
        // Grown again to about the old count: copied by no one, so not "little left".
        #expect(decide(1_100, &state) == .background)
        #expect(decide(3_000, &state) == .nothing)
    }

    @Test("at four times the threshold the writer catches up, queued background or not")
    func writerCatchesUpAtTheBound() {
        var state = State(walPages: 3_900, generation: 0, copied: 0, queued: true)
        #expect(decide(4_000, &state) == .catchUp)
        state.queued = false
        #expect(decide(4_100, &state) == .catchUp)
    }
}
