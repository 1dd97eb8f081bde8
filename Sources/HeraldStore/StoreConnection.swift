import Foundation

/// What the statements both stores share need of a connection: SQLite's and PostgreSQL's
/// answer the same calls, so a statement written once (see ``InboxStatements``) runs on either.
protocol StoreConnection {
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

    /// A subquery answering the strings of the bound JSON array `json`, one row each.
    static func jsonTextElements(_ json: String) -> SQL

    /// A `FROM` source of the elements of the bound JSON array `json`, one row each, named
    /// `element`; `element.value ->> 0` reads the first item of an element that is an array.
    static func jsonElements(_ json: String) -> SQL

    /// Holds a lock named `name` until the transaction ends: another transaction asking for the
    /// same name waits for this one to end. A no-op where one writer at a time is the rule.
    func holdLock(_ name: String) throws(StoreError)

    /// Reports `change` once the transaction commits (nothing if it rolls back): to this store's
    /// ``ChangeFeed``, and on PostgreSQL to the other processes sharing the database too.
    func announce(_ change: LiveChange) throws(StoreError)

    func execute(_ sql: SQL) throws(StoreError)
    func query<T>(_ sql: SQL, _ map: (Row) throws(StoreError) -> T) throws(StoreError) -> [T]
    func queryOne<T>(_ sql: SQL, _ map: (Row) throws(StoreError) -> T) throws(StoreError) -> T?

    /// Runs an INSERT, UPDATE or DELETE and answers the rows it changed.
    func change(_ sql: SQL) throws(StoreError) -> Int
}

/// One result row, read by column index; every read that can meet a malformed value throws.
protocol StoreRow {
    func isNull(_ column: Int) -> Bool
    func text(_ column: Int) -> String
    func int64(_ column: Int) throws(StoreError) -> Int64
    func int(_ column: Int) throws(StoreError) -> Int
    func bool(_ column: Int) throws(StoreError) -> Bool
    func date(_ column: Int) throws(StoreError) -> Date
    func optionalText(_ column: Int) -> String?
    func optionalInt64(_ column: Int) throws(StoreError) -> Int64?
    func optionalBool(_ column: Int) throws(StoreError) -> Bool?
    func optionalDate(_ column: Int) throws(StoreError) -> Date?
    func json<T: Decodable>(_ type: T.Type, _ column: Int) throws(StoreError) -> T
    func optionalJSON<T: Decodable>(_ type: T.Type, _ column: Int) throws(StoreError) -> T?
    /// A TEXT column holding a flat JSON object of strings (the `data` column).
    func stringMap(_ column: Int) throws(StoreError) -> [String: String]
    /// A TEXT column holding a raw-value enum.
    func enumValue<T: RawRepresentable>(_ type: T.Type, _ column: Int) throws(StoreError) -> T
    where T.RawValue == String
    func optionalEnumValue<T: RawRepresentable>(_ type: T.Type, _ column: Int) throws(StoreError) -> T?
    where T.RawValue == String
}

extension StoreConnection {
    /// Holds `claim`'s key until the transaction ends, so two requests with one key publish once.
    func lockIdempotencyKey(_ claim: IdempotencyClaim) throws(StoreError) {
        try holdLock(claim.apiKeyID + ":" + claim.key)
    }
}

extension SQLiteRow: StoreRow {}

extension SQLiteConnection: StoreConnection {
    static var rowLock: SQL { "" }
    static var claimLock: SQL { "" }
    static var rowIdentity: SQL { "rowid" }

    static func jsonTextElements(_ json: String) -> SQL { "SELECT value FROM json_each(\(json))" }
    static func jsonElements(_ json: String) -> SQL { "json_each(\(json)) AS element" }

    /// A no-op: SQLite's one writer already runs write transactions one after the other.
    func holdLock(_ name: String) throws(StoreError) {}

    /// A no-op: one process holds a SQLite database, and its hub hears every change itself.
    func announce(_ change: LiveChange) throws(StoreError) {
        pendingChanges.announce(change, to: feed)
    }

    func change(_ sql: SQL) throws(StoreError) -> Int {
        try execute(sql)
        return changes
    }
}

extension PostgresRow: StoreRow {}

extension PostgresConnection: StoreConnection {
    static var rowLock: SQL { "FOR UPDATE" }
    static var claimLock: SQL { "FOR UPDATE SKIP LOCKED" }
    static var rowIdentity: SQL { "ctid" }

    static func jsonTextElements(_ json: String) -> SQL { "SELECT json_array_elements_text(\(json)::json)" }
    static func jsonElements(_ json: String) -> SQL { "json_array_elements(\(json)::json) AS element(value)" }

    func holdLock(_ name: String) throws(StoreError) {
        try execute("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))")
    }

    func change(_ sql: SQL) throws(StoreError) -> Int { try run(sql).changes }
}
