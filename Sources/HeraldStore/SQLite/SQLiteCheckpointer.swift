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
/// A checkpoint running beside a busy writer ends a transaction behind, so the WAL would keep
/// growing: when the background has left no more than an eighth of `pages`, or no more than
/// the last commit wrote, the writer copies that remainder itself after its commit, and its
/// next write restarts the WAL. Should the WAL reach four times `pages` anyway, the writer
/// waits for the background checkpoint in progress and then copies the rest itself, so the WAL
/// stays bounded; `journal_size_limit` (set on the writer) gives the file back after a spike.
final class SQLiteCheckpointer: Sendable {
    /// SQLite's default is 1,000 pages; a 1,000-recipient publish writes several thousand, and
    /// pages rewritten by consecutive transactions are copied back once per checkpoint.
    static let defaultPages = 10_000

    /// What the writer does after a commit.
    enum Action: Equatable {
        case nothing
        /// Queue a checkpoint on the checkpointer's connection.
        case background
        /// Copy the few frames left, on the writer, now.
        case finish
        /// The WAL is at its bound: wait for the background checkpoint, then copy the rest.
        case catchUp
    }

    /// What the writer and the background know of the WAL, under one lock.
    struct State: Equatable {
        /// The WAL's length after the last commit; a shorter one means it started again.
        var walPages = 0
        /// Bumped when the WAL starts again: a count of copied frames is about one WAL.
        var generation = 0
        /// Frames of this generation's WAL a checkpoint has copied back.
        var copied = 0
        /// A background checkpoint is queued or running.
        var queued = false
        /// Checkpoints that ran on the checkpointer's connection, and on the writer.
        var background = 0
        var onWriter = 0
    }

    let pages: Int
    private let queue: ConnectionQueue<SQLiteConnection>
    private let state = Mutex(State())

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

    /// The WAL file's size limit set on the writer: what a WAL that grew past it (at most four
    /// times the threshold) is cut back to when it starts again.
    var journalSizeLimitBytes: Int { 2 * pages * (4_096 + 24) }

    /// Checkpoints that ran on this connection, and on the writer (finishing one, or catching up).
    var checkpoints: (background: Int, onWriter: Int) {
        state.withLock { state in (state.background, state.onWriter) }
    }

    /// The writer's decision after a commit that left the WAL `walPages` long; updates `state`.
    /// Written apart from any connection so every case is tested (`SQLiteCheckpointTests`).
    static func decide(walPages: Int, pages: Int, _ state: inout State) -> Action {
        let grown = walPages - state.walPages
        if walPages < state.walPages {
            // The WAL started again: nothing of it is copied yet.
            state.generation += 1
            state.copied = 0
        }
        state.walPages = walPages
        guard walPages >= pages else { return .nothing }
        if walPages >= 4 * pages { return .catchUp }
        guard !state.queued else { return .nothing }
        let behind = walPages - min(state.copied, walPages)
        if state.copied > 0, behind <= max(pages / 8, grown) { return .finish }
        state.queued = true
        return .background
    }

    /// On the writer's queue, after a commit that left the WAL `walPages` long.
    func committed(walPages: Int, writer: SQLiteConnection) {
        let (action, generation) = state.withLock { state in
            (Self.decide(walPages: walPages, pages: pages, &state), state.generation)
        }
        switch action {
        case .nothing:
            return
        case .finish:
            // A failure is retried at the next commit, as SQLite's automatic checkpoint ignores its own.
            if let copied = try? writer.checkpointPassively() { record(copied, generation: generation, onWriter: true) }
        case .catchUp:
            // Behind the checkpoint in progress (if any), on its connection: the writer waits, so
            // nothing is appended meanwhile and this one copies every frame no reader needs.
            if let copied = try? queue.runBlocking({ connection in try connection.checkpointPassively() }) {
                record(copied, generation: generation, onWriter: true)
            }
        case .background:
            queue.submit { connection in
                // Without a connection (it could not be opened) nothing runs, and the next
                // commit past the threshold queues another.
                let copied = try? connection.get().checkpointPassively()
                self.state.withLock { state in state.queued = false }
                if let copied { self.record(copied, generation: generation, onWriter: false) }
            }
        }
    }

    /// Notes that a checkpoint copied `copied` frames of the WAL of `generation` (a count about
    /// an older WAL is dropped).
    private func record(_ copied: Int, generation: Int, onWriter writer: Bool) {
        state.withLock { state in
            if state.generation == generation { state.copied = max(state.copied, copied) }
            if writer { state.onWriter += 1 } else { state.background += 1 }
        }
    }

    /// Returns once what was queued before it has run: for tests.
    func settle() async throws {
        try await queue.run(.read) { _ in }
    }
}
