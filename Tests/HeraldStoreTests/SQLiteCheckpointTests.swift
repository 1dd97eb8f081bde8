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
        try await withTemporaryDirectory("herald-checkpoint") { directory in
            let path = directory.path("wal.db")
            let pool = try SQLiteConnectionPool(path: path, readers: 1, checkpointPages: Self.threshold)
            try pool.withWriterBlocking { db in try db.executeUncached("CREATE TABLE filler (n INTEGER, blob TEXT)") }
            try await write(300, to: pool, settling: true)
            let checkpoints = try #require(pool.checkpointer).checkpoints
            #expect(checkpoints.background > 0)
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

    @Test("while the background checkpoint cannot run, the writer keeps the WAL at four times the threshold")
    func writerBoundsTheWAL() async throws {
        try await withTemporaryDirectory("herald-checkpoint") { directory in
            let path = directory.path("wal.db")
            let pool = try SQLiteConnectionPool(path: path, readers: 1, checkpointPages: Self.threshold)
            let checkpointer = try #require(pool.checkpointer)
            try pool.withWriterBlocking { db in try db.executeUncached("CREATE TABLE filler (n INTEGER, blob TEXT)") }
            let gate = DispatchSemaphore(value: 0)
            checkpointer.hold(until: gate)
            try await write(300, to: pool, settling: false)
            // Four times the threshold, then the writer's own checkpoint, then one commit more.
            #expect(try walPages(path) <= 4 * Self.threshold + 4)
            #expect(checkpointer.checkpoints.onWriter > 0)
            #expect(checkpointer.checkpoints.background == 0)
            gate.signal()
            try await checkpointer.settle()
            let rows = try await rowCount(pool)
            #expect(rows == 300)
        }
    }
}
