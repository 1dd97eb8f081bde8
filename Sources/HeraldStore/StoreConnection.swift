import FoundationEssentials

/// What the statements need of a connection: SQLite's and PostgreSQL's answer the same calls,
/// so a statement written once (see ``InboxStatements``) runs on either. Where the databases
/// differ (index hints, row locks, advisory locks, JSON arrays) the connection type answers a
/// hook, and the statement splices it in.
///
/// A connection is used by one thread at a time: the queue that owns it (``ConnectionQueue``).
package protocol StoreConnection: AnyObject, SendableMetatype {
    associatedtype Row: StoreRow

    /// The placeholder style and column types of this database.
    static var dialect: SQLDialect { get }

    /// Locks the rows a `SELECT` reads until the transaction ends (`FOR UPDATE`), where other
    /// writers can run at once; empty where one writer at a time is the rule.
    static var rowLock: SQL { get }

    /// Locks the one row a claim query picks, skipping rows another claimer holds at this
    /// moment (`FOR UPDATE SKIP LOCKED`); empty where one writer at a time is the rule.
    static var claimLock: SQL { get }

    /// A column that identifies a row of a table without a single-column key (`rowid`, `ctid`).
    static var rowIdentity: SQL { get }

    /// Pins the index a statement reads through, where the database takes a hint (SQLite's
    /// `INDEXED BY`: without statistics its planner can pick a worse one); empty elsewhere.
    static func indexHint(_ index: String) -> SQL

    /// A subquery answering the strings of the bound JSON array `json`, one row each, in a
    /// column named `value`.
    static func jsonTextElements(_ json: String) -> SQL

    /// A `FROM` source of the elements of the bound JSON array `json`, one row each, named
    /// `element`; `element.value ->> 0` reads the first item of an element that is an array.
    static func jsonElements(_ json: String) -> SQL

    /// Holds a lock named `name` until the transaction ends: another transaction asking for the
    /// same name waits for this one to end. A no-op where one writer at a time is the rule.
    func holdLock(_ name: String) throws(StoreError)

    /// Runs `body` while no other process migrates the same schema (PostgreSQL's session
    /// advisory lock); SQLite's one writer already excludes the others.
    func withMigrationLock<T>(_ body: () throws -> T) throws -> T

    /// Reports `change` once the transaction commits (nothing if it rolls back): to this store's
    /// ``ChangeFeed``, and on PostgreSQL to the other processes sharing the database too.
    func announce(_ change: LiveChange) throws(StoreError)

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it
    /// throws; the changes it announced reach the feed after the commit.
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// Runs `body`, which only reads, against one snapshot of the database: every statement of
    /// it sees what was committed when the first one ran (SQLite: a read transaction;
    /// PostgreSQL: a `REPEATABLE READ` one, since its default gives each statement its own).
    func snapshot<T>(_ body: () throws -> T) throws -> T

    /// What the transaction in progress read of the webhook subscriptions; a new transaction
    /// starts with none read (see ``WebhookStatements/subscribers(_:_:)``).
    var webhookSubscriptions: WebhookSubscriptionCache { get set }

    func execute(_ sql: SQL) throws(StoreError)
    /// Runs a statement given as plain text (DDL, pragmas) without caching or preparing it.
    func executeUncached(_ text: String) throws(StoreError)
    /// Runs a statement and maps every row; `capacity` is how many rows the caller expects, so
    /// a large answer is not copied as it grows (SQLite cannot tell before the last step).
    func query<T>(_ sql: SQL, capacity: Int, _ map: (Row) throws(StoreError) -> T) throws(StoreError) -> [T]
    func queryOne<T>(_ sql: SQL, _ map: (Row) throws(StoreError) -> T) throws(StoreError) -> T?

    /// Runs an INSERT, UPDATE or DELETE and answers the rows it changed.
    func change(_ sql: SQL) throws(StoreError) -> Int

    /// Runs an INSERT of one row and answers its key, the table's `INTEGER PRIMARY KEY` /
    /// identity column `key`: SQLite reads it from the connection (`RETURNING` costs SQLite a
    /// temporary table per statement: 7.5 against 4.4 ms for a publish's 1,000 stream events),
    /// PostgreSQL from `RETURNING`.
    func insertReturningKey(_ sql: SQL, key: String) throws(StoreError) -> Int64

    /// Whether the next call may use this connection (a PostgreSQL session may have been lost).
    var isReusable: Bool { get }
    /// Statements sent so far, so a caller can tell whether a failure came on the first one.
    var statementsSent: Int { get }
}

/// One result row. Columns are read by the name the statement gives them (its `AS` alias, or
/// the column's own name), never by position, so reordering a `SELECT` list cannot make a read
/// take another column; every read that can meet a missing column or a malformed value throws.
///
/// A database answers the three primitive reads; every typed read is written once, below.
package protocol StoreRow {
    /// The statement this row came from, for errors.
    var sql: String { get }
    /// The position of the column called `name`.
    func column(_ name: String) throws(StoreError) -> Int
    func isNull(at column: Int) -> Bool
    func text(at column: Int) -> String
    func int64(at column: Int) throws(StoreError) -> Int64
}

extension StoreRow {
    func isNull(_ name: String) throws(StoreError) -> Bool { isNull(at: try column(name)) }
    func text(_ name: String) throws(StoreError) -> String { text(at: try column(name)) }
    func int64(_ name: String) throws(StoreError) -> Int64 { try int64(at: try column(name)) }
    func int(_ name: String) throws(StoreError) -> Int { Int(try int64(name)) }
    /// Booleans are stored as 0 or 1.
    func bool(_ name: String) throws(StoreError) -> Bool { try int64(name) != 0 }
    /// Times are stored as INTEGER milliseconds since 1970 (see ``StoreTime``).
    func date(_ name: String) throws(StoreError) -> Date { StoreTime.date(try int64(name)) }

    func optionalText(_ name: String) throws(StoreError) -> String? {
        let index = try column(name)
        return isNull(at: index) ? nil : text(at: index)
    }

    func optionalInt64(_ name: String) throws(StoreError) -> Int64? {
        let index = try column(name)
        return isNull(at: index) ? nil : try int64(at: index)
    }

    func optionalBool(_ name: String) throws(StoreError) -> Bool? { try optionalInt64(name).map { $0 != 0 } }
    func optionalDate(_ name: String) throws(StoreError) -> Date? { try optionalInt64(name).map(StoreTime.date) }

    /// Decodes a JSON TEXT column.
    func json<T: Decodable>(_ type: T.Type, _ name: String) throws(StoreError) -> T {
        try StoreJSON.decode(type, from: text(name), sql: sql)
    }

    func optionalJSON<T: Decodable>(_ type: T.Type, _ name: String) throws(StoreError) -> T? {
        guard let text = try optionalText(name) else { return nil }
        return try StoreJSON.decode(type, from: text, sql: sql)
    }

    /// A TEXT column holding a flat JSON object of strings (the `data` column).
    func stringMap(_ name: String) throws(StoreError) -> [String: String] {
        try StoreJSON.decodeData(text(name), sql: sql)
    }

    /// A TEXT column holding a raw-value enum.
    func enumValue<T: RawRepresentable>(_ type: T.Type, _ name: String) throws(StoreError) -> T
    where T.RawValue == String {
        guard let value = try optionalEnumValue(type, name) else {
            throw StoreError(code: .invalidStoredValue, message: "column \(name) is NULL, expected \(T.self)", sql: sql)
        }
        return value
    }

    /// A nullable TEXT column holding a raw-value enum.
    func optionalEnumValue<T: RawRepresentable>(_ type: T.Type, _ name: String) throws(StoreError) -> T?
    where T.RawValue == String {
        guard let raw = try optionalText(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw StoreError(code: .invalidStoredValue, message: "unknown \(T.self) value in column \(name)", sql: sql)
        }
        return value
    }
}

/// A result's column names and the one lookup of a column by name, shared by the rows of one
/// result (or one prepared statement) on the one thread that reads them.
///
/// A scan, not a hash: the names are short strings. It starts where the last lookup ended,
/// because a row's columns are mostly read in the order they were selected: a claim's 25-column
/// rows, each column found by scanning from the first, were 2% of a push profile.
final class ColumnNames {
    let names: [String]
    /// Where the next scan starts: the position after the last column found.
    private var next = 0

    init(_ names: [String]) {
        self.names = names
    }

    func index(of name: String, sql: String) throws(StoreError) -> Int {
        var index = next
        for _ in 0..<names.count {
            if index == names.count { index = 0 }
            if names[index] == name {
                next = index + 1
                return index
            }
            index += 1
        }
        throw StoreError(
            code: .invalidStoredValue, message: "the result has no column \(name) (it has \(names))", sql: sql)
    }
}

extension StoreConnection {
    /// Runs a statement and maps every row.
    package func query<T>(_ sql: SQL, _ map: (Row) throws(StoreError) -> T) throws(StoreError) -> [T] {
        try query(sql, capacity: 0, map)
    }

    /// Holds `claim`'s key until the transaction ends, so two requests with one key publish once.
    func lockIdempotencyKey(_ claim: IdempotencyClaim) throws(StoreError) {
        try holdLock(claim.apiKeyID + ":" + claim.key)
    }
}

extension SQLiteConnection: StoreConnection {
    package static var rowLock: SQL { "" }
    package static var claimLock: SQL { "" }
    package static var rowIdentity: SQL { "rowid" }

    package static func indexHint(_ index: String) -> SQL { "INDEXED BY \(unsafeSQL: index)" }
    package static func jsonTextElements(_ json: String) -> SQL { "SELECT value FROM json_each(\(json))" }
    package static func jsonElements(_ json: String) -> SQL { "json_each(\(json)) AS element" }

    /// A no-op: SQLite's one writer already runs write transactions one after the other.
    package func holdLock(_ name: String) throws(StoreError) {}

    /// Just `body`: SQLite's one writer already runs migrations one process at a time.
    package func withMigrationLock<T>(_ body: () throws -> T) throws -> T { try body() }

    /// To this store's feed: one process holds a SQLite database, so there is nobody else to tell.
    package func announce(_ change: LiveChange) throws(StoreError) {
        pendingChanges.announce(change, to: feed)
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(write: true, body)
    }

    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try transaction(write: false, body)
    }

    package func change(_ sql: SQL) throws(StoreError) -> Int {
        try execute(sql)
        return changes
    }

    package func insertReturningKey(_ sql: SQL, key: String) throws(StoreError) -> Int64 {
        try execute(sql)
        return lastInsertedRowID
    }

    /// Always: a SQLite connection is a file handle, never lost under its user.
    package var isReusable: Bool { true }
    /// Not counted: a SQLite call never fails as unavailable, so it is never run again.
    package var statementsSent: Int { 0 }
}

extension PostgresConnection: StoreConnection {
    package static var rowLock: SQL { "FOR UPDATE" }
    package static var claimLock: SQL { "FOR UPDATE SKIP LOCKED" }
    package static var rowIdentity: SQL { "ctid" }

    /// Empty: PostgreSQL's planner has statistics, and takes no hints.
    package static func indexHint(_ index: String) -> SQL { "" }
    package static func jsonTextElements(_ json: String) -> SQL {
        "SELECT json_array_elements_text(\(json)::json) AS value"
    }
    package static func jsonElements(_ json: String) -> SQL { "json_array_elements(\(json)::json) AS element(value)" }

    package func holdLock(_ name: String) throws(StoreError) {
        try execute("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))")
    }

    /// The first key of the session advisory lock held while migrating (the second is the
    /// schema's hash), so processes starting at once migrate one after the other.
    static let migrationLockKey: Int32 = 0x4852_4C44  // "HRLD"

    package func withMigrationLock<T>(_ body: () throws -> T) throws -> T {
        let lock: SQL = "\(Int(Self.migrationLockKey)), hashtext(current_schema())"
        try execute("SELECT pg_advisory_lock(\(lock))")
        defer { _ = try? execute("SELECT pg_advisory_unlock(\(lock))") }
        return try body()
    }

    package func change(_ sql: SQL) throws(StoreError) -> Int { try run(sql).changes }

    package func insertReturningKey(_ sql: SQL, key: String) throws(StoreError) -> Int64 {
        let returning = try queryOne("\(sql) RETURNING \(unsafeSQL: key)") { row throws(StoreError) in
            try row.int64(key)
        }
        guard let returning else {
            throw StoreError(
                code: .invalidStoredValue, message: "an insert returned no \(key)", sql: sql.text(for: Self.dialect))
        }
        return returning
    }

    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", body)
    }
}
