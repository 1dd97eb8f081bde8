import CSQLite
import FoundationEssentials

/// Owns one `sqlite3*` handle and its prepared-statement cache; closes both in `deinit`.
///
/// Not thread-safe: a connection is only ever used from its own serial queue (see
/// ``ConnectionQueue``). It is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Prepared statements keyed by SQL text. Statement texts never hold values, so the
    /// number of keys is bounded by the store's code paths.
    private var cache: [String: SQLiteStatement] = [:]
    /// Where committed changes go (the writer's store feed); nil on readers.
    var feed: ChangeFeed?
    /// What the transaction in progress announced.
    var pendingChanges = PendingChanges()
    /// What the transaction in progress read of the webhook subscriptions.
    package var webhookSubscriptions = WebhookSubscriptionCache()
    package static let dialect = SQLDialect.sqlite

    /// Process-wide settings, applied once before the first connection opens (SQLite refuses
    /// them after it initialized, which is harmless). Memory statistics off: they take a global
    /// mutex on every allocation.
    private static let libraryConfigured: Bool = {
        herald_sqlite_config_int(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK
    }()

    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws(StoreError) {
        _ = Self.libraryConfigured
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        do {
            // A nil handle means SQLite could not even allocate one.
            try sqliteCheck(db == nil && rc == SQLITE_OK ? SQLITE_NOMEM : rc, db: db, sql: nil)
            try sqliteCheck(sqlite3_extended_result_codes(db, 1), db: db, sql: nil)
            try sqliteCheck(sqlite3_busy_timeout(db, busyTimeoutMilliseconds), db: db, sql: nil)
        } catch {
            sqlite3_close_v2(db)
            throw StoreError(
                code: error.code, resultCode: error.resultCode, message: "\(error.message) (opening \(path))")
        }
        handle = db!
    }

    deinit {
        cache.removeAll()  // finalizes every statement before the handle goes
        sqlite3_wal_hook(handle, nil, nil)  // the hook's context goes with this object
        sqlite3_close_v2(handle)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: Write-ahead log

    /// What ``onCommit(_:)`` installed; the connection keeps it alive as long as the handle.
    private var commitHook: CommitHook?

    /// Calls `handler` on this connection's queue after each commit that appended to the WAL,
    /// with this connection and the WAL's length in pages. It replaces SQLite's automatic
    /// checkpoint (which is the same hook): whoever installs one decides when the WAL is copied
    /// back.
    func onCommit(_ handler: @escaping (_ connection: SQLiteConnection, _ walPages: Int) -> Void) {
        let hook = CommitHook(self, handler)
        commitHook = hook
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                let hook = Unmanaged<CommitHook>.fromOpaque(context).takeUnretainedValue()
                hook.handler(hook.connection, Int(pages))
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Copies the WAL's frames back into the database file as far as no reader still needs
    /// them, without waiting for anyone (`SQLITE_CHECKPOINT_PASSIVE`). Answers how many frames
    /// of the WAL are now copied back, or nil when nothing ran: another connection's checkpoint
    /// was running (that one does the work), or this connection has not yet read the file in WAL
    /// mode.
    @discardableResult
    func checkpointPassively() throws(StoreError) -> Int? {
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
        if rc == SQLITE_BUSY { return nil }
        try sqliteCheck(rc, db: handle, sql: "checkpoint (passive)")
        return copied >= 0 ? Int(copied) : nil  // -1: the connection has not seen the file in WAL mode
    }

    /// The hook's context. `unowned`: the connection owns it, and SQLite calls it only
    /// while the handle is open.
    private final class CommitHook {
        unowned let connection: SQLiteConnection
        let handler: (SQLiteConnection, Int) -> Void
        init(_ connection: SQLiteConnection, _ handler: @escaping (SQLiteConnection, Int) -> Void) {
            self.connection = connection
            self.handler = handler
        }
    }

    // MARK: Statements

    /// The cached statement for `text`, prepared on first use. A statement still being stepped
    /// (a nested use of the same text) gets a fresh, uncached one instead.
    func statement(_ text: String) throws(StoreError) -> SQLiteStatement {
        if let cached = cache[text], !cached.isActive {
            return cached
        }
        let statement = try SQLiteStatement(db: handle, sql: text, persistent: true)
        if cache[text] == nil {
            cache[text] = statement
        }
        return statement
    }

    /// Runs a statement to completion, ignoring any rows.
    package func execute(_ sql: SQL) throws(StoreError) {
        let statement = try statement(sql.text(for: Self.dialect))
        try statement.run(sql.values) { _ throws(StoreError) in }
    }

    /// Runs a statement given as plain text (DDL, pragmas, transaction control) without caching it.
    package func executeUncached(_ text: String) throws(StoreError) {
        let statement = try SQLiteStatement(db: handle, sql: text, persistent: false)
        try statement.run([]) { _ throws(StoreError) in }
    }

    /// Runs a statement and maps every row, with room for `capacity` of them from the start.
    package func query<T>(_ sql: SQL, capacity: Int, _ map: (SQLiteRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        let statement = try statement(sql.text(for: Self.dialect))
        var rows: [T] = []
        rows.reserveCapacity(capacity)
        try statement.run(sql.values) { row throws(StoreError) in rows.append(try map(row)) }
        return rows
    }

    /// Runs a statement and maps its first row, if any (the statement still runs to completion).
    package func queryOne<T>(_ sql: SQL, _ map: (SQLiteRow) throws(StoreError) -> T) throws(StoreError) -> T? {
        let statement = try statement(sql.text(for: Self.dialect))
        var first: T?
        try statement.run(sql.values) { row throws(StoreError) in
            if first == nil { first = try map(row) }
        }
        return first
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(write: Bool, _ body: () throws -> T) throws -> T {
        try execute(SQL(stringLiteral: write ? Self.dialect.beginWrite : "BEGIN"))
        pendingChanges.begin()
        webhookSubscriptions = WebhookSubscriptionCache()
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            pendingChanges.rollback()
            rollback()
            throw error
        }
        pendingChanges.commit(to: feed)
        return result
    }

    private func rollback() {
        // A failed COMMIT or statement may already have ended the transaction.
        guard sqlite3_get_autocommit(handle) == 0 else { return }
        do {
            try execute("ROLLBACK")
        } catch {
            // A connection left inside a transaction would fail every later BEGIN: this is
            // not recoverable in place, and continuing would only hide the cause.
            preconditionFailure("ROLLBACK failed, the connection is unusable: \(error)")
        }
    }
}

/// Owns one `sqlite3_stmt*`; finalizes it in `deinit`.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let db: OpaquePointer
    let sql: String
    /// True while rows are being stepped.
    private(set) var isActive = false
    /// The result's column names, read once per prepared statement (rows are read by name).
    private lazy var columnNames = ColumnNames(
        (0..<sqlite3_column_count(handle)).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
        })

    init(db: OpaquePointer, sql: String, persistent: Bool) throws(StoreError) {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let (rc, rest) = sql.withCString { text in
            let rc = sqlite3_prepare_v3(db, text, -1, flags, &statement, &tail)
            // What follows the first statement; it must be blank, or it would silently not run.
            return (rc, tail.map { String(cString: $0) } ?? "")
        }
        try sqliteCheck(rc, db: db, sql: sql)
        guard let statement else {
            throw StoreError(code: .sqlite, resultCode: SQLITE_MISUSE, message: "empty statement", sql: sql)
        }
        guard rest.allSatisfy(\.isWhitespace) else {
            sqlite3_finalize(statement)
            throw StoreError(
                code: .sqlite, resultCode: SQLITE_MISUSE, message: "more than one statement in one SQL text", sql: sql)
        }
        self.handle = statement
        self.db = db
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values`, steps to completion calling `row` for each row, then resets.
    func run(_ values: [SQLValue], row: (SQLiteRow) throws(StoreError) -> Void) throws(StoreError) {
        precondition(!isActive, "statement reentered while stepping: \(sql)")
        isActive = true
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            isActive = false
        }
        try bind(values)
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            try sqliteCheck(rc, db: db, sql: sql)
            try row(SQLiteRow(handle: handle, columns: columnNames, sql: sql))
        }
    }

    private func bind(_ values: [SQLValue]) throws(StoreError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw StoreError(
                code: .sqlite, resultCode: SQLITE_RANGE,
                message: "statement takes \(expected) parameters, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let number):
                rc = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                rc = sqlite3_bind_double(handle, index, number)
            case .text(var text):
                // Explicit byte length; an empty buffer still binds '' (a nil pointer would bind NULL).
                rc = text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, bytes.count > 0 else {
                        return sqlite3_bind_text64(handle, index, "", 0, herald_sqlite_transient(), UInt8(SQLITE_UTF8))
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { pointer in
                        sqlite3_bind_text64(
                            handle, index, pointer, UInt64(bytes.count), herald_sqlite_transient(), UInt8(SQLITE_UTF8))
                    }
                }
            }
            try sqliteCheck(rc, db: db, sql: sql)
        }
    }
}

/// The current row of a statement being stepped; valid only inside the row callback.
package struct SQLiteRow: StoreRow {
    fileprivate let handle: OpaquePointer
    fileprivate let columns: ColumnNames
    package let sql: String

    fileprivate init(handle: OpaquePointer, columns: ColumnNames, sql: String) {
        self.handle = handle
        self.columns = columns
        self.sql = sql
    }

    package func column(_ name: String) throws(StoreError) -> Int {
        try columns.index(of: name, sql: sql)
    }

    package func isNull(at column: Int) -> Bool {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL
    }

    package func int64(at column: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(column))
    }

    package func text(at column: Int) -> String {
        let index = Int32(column)
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
