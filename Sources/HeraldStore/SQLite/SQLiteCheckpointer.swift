import Dispatch
import Synchronization

/// Copies the WAL back into the database file from a connection of its own, on its own queue,
/// so the writer does not do the bulk of it inside a write.
///
/// SQLite's automatic checkpoint runs in the commit that crosses its threshold, on the writer:
/// at 10,000 pages every third 1,000-recipient publish waited 130–200 ms more while 40 MB were
/// copied back into the file and synced (`scripts/bench-publish.sh`, 2026-12-07). Here a
/// commit only notes the WAL's length; past `pages` it queues one passive checkpoint on this
/// connection (at most one queued or running at a time), which copies what no reader still
/// needs and never waits for the writer or a reader.
///
/// The WAL starts again from its beginning only at a write that finds every frame copied back.
/// A checkpoint running beside the writer always ends a transaction behind, so the WAL would
/// keep growing: when the background checkpoint has left only a few frames (at most an eighth
/// of `pages`, what a small transaction such as a batch of outcomes writes), the writer copies
/// those itself after its commit, and its next write restarts the WAL. Should the background
/// fall behind (the WAL at four times `pages`), the writer checkpoints itself, as SQLite's
/// automatic checkpoint would have, so the WAL stays bounded.
final class SQLiteCheckpointer: Sendable {
    /// SQLite's default is 1,000 pages; a 1,000-recipient publish writes several thousand, and
    /// pages rewritten by consecutive transactions are copied back once per checkpoint.
    static let defaultPages = 10_000

    let pages: Int
    private let queue: ConnectionQueue<SQLiteConnection>
    private let queued = Atomic<Bool>(false)
    /// Frames of the WAL the last checkpoint copied back (of the WAL as it was then).
    private let copied = Atomic<Int>(0)
    private let background = Atomic<Int>(0)
    private let onWriter = Atomic<Int>(0)

    init(path: String, pages: Int = defaultPages) {
        precondition(pages >= 8, "a checkpoint threshold is at least 8 pages")
        self.pages = pages
        // Opened at the first checkpoint, after the writer put the file in WAL mode; a read
        // first, because a connection learns that the file is in WAL mode only when it reads
        // it (until then a checkpoint on it does nothing and reports -1 frames).
        let open: @Sendable () throws(StoreError) -> SQLiteConnection = { () throws(StoreError) in
            let connection = try SQLiteConnection(path: path)
            _ = try connection.queryOne("SELECT count(*) AS tables FROM sqlite_schema") { _ throws(StoreError) in }
            return connection
        }
        queue = ConnectionQueue(label: "herald.sqlite.checkpoint", connect: open)
    }

    /// Checkpoints that ran on this connection, and on the writer (finishing one, or falling behind).
    var checkpoints: (background: Int, onWriter: Int) {
        (background.load(ordering: .relaxed), onWriter.load(ordering: .relaxed))
    }

    /// On the writer's queue, after a commit that left the WAL `walPages` long.
    func committed(walPages: Int, writer: SQLiteConnection) {
        guard walPages >= pages else { return }
        // After the WAL restarted, the last count is of an older, longer WAL: nothing is copied.
        let copiedFrames = copied.load(ordering: .acquiring)
        let behind = copiedFrames <= walPages ? walPages - copiedFrames : walPages
        let running = queued.load(ordering: .acquiring)
        if walPages >= 4 * pages || (!running && behind <= pages / 8) {
            // A failure is retried at the next commit, as SQLite's automatic checkpoint ignores its own.
            if let done = try? writer.checkpointPassively() {
                copied.store(done, ordering: .releasing)
                onWriter.add(1, ordering: .relaxed)
            }
            return
        }
        guard !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.submit { connection in
            if let done = try? connection.checkpointPassively() {
                self.copied.store(done, ordering: .releasing)
                self.background.add(1, ordering: .relaxed)
            }
            self.queued.store(false, ordering: .releasing)
        }
    }

    /// Returns once what was queued before it has run: for tests.
    func settle() async throws {
        try await queue.run(.read) { _ in }
    }

    /// Holds this connection's queue until `gate` is signalled, so no background checkpoint
    /// runs: for tests of the writer's fallback.
    func hold(until gate: DispatchSemaphore) {
        queue.submit { _ in gate.wait() }
    }
}
