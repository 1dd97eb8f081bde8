/// ONE writer connection (writes run one after the other, each in a `BEGIN IMMEDIATE`
/// transaction) and a few reader connections that read concurrently thanks to WAL; each on
/// its own serial queue (``ConnectionQueue``), so no SQLite call, and no wait for the writer's
/// turn, ever blocks one of Swift's cooperative threads.
///
/// An in-memory database is private to its connection, so `:memory:` uses the writer alone
/// for reads and writes (a shared-cache URI would bring table-level locking instead).
final class SQLiteConnectionPool: Sendable {
    private let writer: ConnectionQueue<SQLiteConnection>
    private let readers: [ConnectionQueue<SQLiteConnection>]
    /// Copies the WAL back off the writer's queue; nil for `:memory:` (no WAL).
    let checkpointer: SQLiteCheckpointer?

    static func isInMemory(_ path: String) -> Bool {
        path == ":memory:" || path.isEmpty
    }

    init(
        path: String, readers readerCount: Int, feed: ChangeFeed? = nil,
        checkpointPages: Int = SQLiteCheckpointer.defaultPages
    ) throws {
        precondition(readerCount >= 0, "reader count must not be negative")
        let inMemory = Self.isInMemory(path)
        let checkpointer = inMemory ? nil : SQLiteCheckpointer(path: path, pages: checkpointPages)
        self.checkpointer = checkpointer
        // A connection is only ever reopened after it was lost, which a SQLite file handle never
        // is (``SQLiteConnection/isReusable``): these run once each, here.
        let openWriter: @Sendable () throws(StoreError) -> SQLiteConnection = { () throws(StoreError) in
            let connection = try SQLiteConnection(path: path)
            connection.feed = feed
            if !inMemory { try Self.enableWAL(connection) }
            try Self.configure(connection, readOnly: false)
            if let checkpointer {
                try connection.executeUncached("PRAGMA journal_size_limit = \(checkpointer.journalSizeLimitBytes)")
                connection.onCommit { writer, pages in checkpointer.committed(walPages: pages, writer: writer) }
            }
            return connection
        }
        let openReader: @Sendable () throws(StoreError) -> SQLiteConnection = { () throws(StoreError) in
            let connection = try SQLiteConnection(path: path)
            try Self.configure(connection, readOnly: true)
            return connection
        }
        writer = ConnectionQueue(label: "herald.sqlite.writer", opened: try openWriter(), connect: openWriter)
        readers =
            inMemory
            ? []
            : try (0..<readerCount).map { _ in
                ConnectionQueue(label: "herald.sqlite.reader", opened: try openReader(), connect: openReader)
            }
    }

    /// SQLite answers the mode it is in; without WAL, readers and the writer would block each
    /// other, so refuse to run rather than degrade silently.
    private static func enableWAL(_ connection: SQLiteConnection) throws(StoreError) {
        let mode = try connection.queryOne("PRAGMA journal_mode = WAL") { row throws(StoreError) in
            try row.text("journal_mode")
        }
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                code: .sqlite,
                message: "the database could not be switched to WAL mode (it is in \(mode ?? "no") mode)",
                sql: "PRAGMA journal_mode = WAL")
        }
    }

    /// Bytes of the database file mapped into memory per connection.
    static let mmapSize = 1 << 34

    private static func configure(_ connection: SQLiteConnection, readOnly: Bool) throws(StoreError) {
        try connection.executeUncached("PRAGMA synchronous = NORMAL")
        try connection.executeUncached("PRAGMA foreign_keys = ON")
        try connection.executeUncached("PRAGMA temp_store = MEMORY")
        // Read the database file through a memory map: a page read is then a memory access, not
        // a pread(2) per page (at 1,000,000 rows the inbox page spent 13% of the server's time in
        // pread). SQLite caps the size at its compile-time maximum (2 GiB in Debian's build).
        try connection.executeUncached("PRAGMA mmap_size = \(mmapSize)")
        if readOnly {
            // 16 MiB of page cache per reader keeps the hot inbox index pages resident.
            try connection.executeUncached("PRAGMA cache_size = -16384")
            try connection.executeUncached("PRAGMA query_only = ON")
        } else {
            // The writer touches one leaf page per recipient in each user-keyed index, so a
            // 1,000-recipient publish dirties thousands of pages: give it 64 MiB of cache. Its
            // WAL is checkpointed by ``SQLiteCheckpointer`` (whose commit hook replaces SQLite's
            // automatic checkpoint), not inside its writes.
            try connection.executeUncached("PRAGMA cache_size = -65536")
        }
    }

    /// Runs `body` in a write transaction on the writer, after the writes queued before it.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.run(.transaction) { db in try db.transaction(write: true) { try body(db) } }
    }

    /// Runs `body` on the least busy reader (the writer for `:memory:`); with `snapshot`, in one
    /// read transaction, so every statement of it sees the same committed state.
    func read<T: Sendable>(
        snapshot: Bool, _ body: @escaping @Sendable (SQLiteConnection) throws -> T
    ) async throws -> T {
        let queue = leastBusyReader()
        guard snapshot else { return try await queue.run(.read, body) }
        return try await queue.run(.read) { db in try db.snapshot { try body(db) } }
    }

    /// Runs `body` on the writer outside any transaction and blocks the caller until it is done:
    /// for opening the store (migrations manage their own transactions) and tests.
    func withWriterBlocking<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.runBlocking(body)
    }

    /// Runs `body` on a reader and blocks the caller until it is done: for `herald migrate`'s
    /// report and tests, never from a request.
    func readBlocking<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try leastBusyReader().runBlocking(body)
    }

    /// The reader with the fewest calls queued (the first of them on a tie), or the writer when
    /// there are none.
    private func leastBusyReader() -> ConnectionQueue<SQLiteConnection> {
        readers.min { $0.load < $1.load } ?? writer
    }
}
