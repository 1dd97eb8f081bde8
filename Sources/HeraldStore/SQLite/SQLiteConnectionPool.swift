import Synchronization

/// One connection behind its own lock.
final class LockedConnection: Sendable {
    private let mutex: Mutex<SQLiteConnection>

    init(_ connection: consuming sending SQLiteConnection) {
        mutex = Mutex(connection)
    }

    func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try mutex.withLock { connection in try body(connection) }
    }

    /// Runs `body` only when the connection is free; `nil` when another task holds it.
    func withConnectionIfAvailable<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T? {
        try mutex.withLockIfAvailable { connection in try body(connection) }
    }
}

/// ONE writer connection (writes are serialized behind its lock, each in a `BEGIN IMMEDIATE`
/// transaction) and a few reader connections that read concurrently thanks to WAL.
///
/// An in-memory database is private to its connection, so `:memory:` uses the writer alone
/// for reads and writes (a shared-cache URI would bring table-level locking instead).
final class SQLiteConnectionPool: Sendable {
    private let writer: LockedConnection
    private let readers: [LockedConnection]
    private let nextReader = Atomic<Int>(0)

    static func isInMemory(_ path: String) -> Bool {
        path == ":memory:" || path.isEmpty
    }

    init(path: String, readers readerCount: Int, feed: ChangeFeed? = nil) throws {
        precondition(readerCount >= 0, "reader count must not be negative")
        let inMemory = Self.isInMemory(path)
        let writerConnection = try SQLiteConnection(path: path)
        writerConnection.feed = feed
        if !inMemory {
            // SQLite answers the mode it is in; without WAL, readers and the writer would block
            // each other, so refuse to run rather than degrade silently.
            let mode = try writerConnection.queryOne("PRAGMA journal_mode = WAL") { row in row.text(0) }
            guard mode?.lowercased() == "wal" else {
                throw StoreError(
                    code: .sqlite,
                    message: "the database could not be switched to WAL mode (it is in \(mode ?? "no") mode)",
                    sql: "PRAGMA journal_mode = WAL")
            }
        }
        try Self.configure(writerConnection, readOnly: false)
        writer = LockedConnection(writerConnection)

        var readers: [LockedConnection] = []
        if !inMemory {
            for _ in 0..<readerCount {
                let reader = try SQLiteConnection(path: path)
                try Self.configure(reader, readOnly: true)
                readers.append(LockedConnection(reader))
            }
        }
        self.readers = readers
    }

    /// Bytes of the database file mapped into memory per connection.
    static let mmapSize = 1 << 34

    private static func configure(_ connection: SQLiteConnection, readOnly: Bool) throws {
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
            // 1,000-recipient publish dirties thousands of pages: give it 64 MiB of cache, and
            // checkpoint the WAL every ~40 MB instead of every 4 MB so pages rewritten by
            // consecutive batches are copied back to the database once.
            try connection.executeUncached("PRAGMA cache_size = -65536")
            try connection.executeUncached("PRAGMA wal_autocheckpoint = 10000")
        }
    }

    /// Runs `body` in a write transaction on the writer connection.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withConnection { connection in
            try connection.transaction(write: true) { try body(connection) }
        }
    }

    /// Runs `body` on the writer connection outside any transaction (migrations manage their own).
    func withWriter<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withConnection(body)
    }

    /// Runs `body` in a read transaction (one consistent snapshot) on a free reader, or on the
    /// next reader in turn when all are busy.
    func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let inTransaction: (SQLiteConnection) throws -> T = { connection in
            try connection.transaction(write: false) { try body(connection) }
        }
        guard !readers.isEmpty else {
            return try writer.withConnection(inTransaction)
        }
        let ticket = UInt(bitPattern: nextReader.wrappingAdd(1, ordering: .relaxed).oldValue)
        let start = Int(ticket % UInt(readers.count))
        for offset in 0..<readers.count {
            let reader = readers[(start + offset) % readers.count]
            if let result = try reader.withConnectionIfAvailable(inTransaction) {
                return result
            }
        }
        return try readers[start].withConnection(inTransaction)
    }
}
