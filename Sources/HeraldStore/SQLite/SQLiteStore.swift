import FoundationEssentials
import HeraldModel

/// The embedded store: one SQLite file in WAL mode.
///
/// Writes go through ONE writer connection, one after the other, each in a `BEGIN IMMEDIATE`
/// transaction; reads use a small pool of reader connections concurrently. Every connection
/// lives on its own serial queue (``SQLiteConnectionPool``): a call suspends its task, never
/// blocks a cooperative thread, while the writer is busy or a page is read. What the store
/// does is ``SQLStore``'s, written once for both databases.
package final class SQLiteStore: SQLStore {
    package typealias Connection = SQLiteConnection

    private let pool: SQLiteConnectionPool
    /// Every committed write a user can see, for the live hub (see ``LiveChangeSource``).
    private let feed = ChangeFeed()
    /// The database file (or `:memory:`).
    package let path: String
    /// The migration versions applied when this store opened (empty when the schema was already current).
    package let appliedMigrations: [Int]

    /// Every migration of the SQLite store, oldest first.
    package static var migrations: [Migration] { Migration.all(.sqlite) }

    /// Opens (creating if needed) the database at `path` and applies pending migrations.
    /// `":memory:"` gives a private in-memory database served by a single connection.
    /// - Parameter readers: reader connections for concurrent reads (file databases only).
    package init(path: String, readers: Int = 4) throws {
        let pool = try SQLiteConnectionPool(path: path, readers: readers, feed: feed)
        self.pool = pool
        self.path = path
        self.appliedMigrations = try pool.withWriterBlocking { db in try Migration.apply(on: db) }
    }

    /// Opens a database URL: `sqlite:./herald.db` (relative), `sqlite:///abs/path.db` (absolute)
    /// or `sqlite::memory:`. Anything else throws ``StoreError/Code/invalidDatabaseURL``.
    package static func open(url: String, readers: Int = 4) throws -> SQLiteStore {
        try SQLiteStore(path: path(fromURL: url), readers: readers)
    }

    /// The file path of a `sqlite:` database URL.
    package static func path(fromURL url: String) throws(StoreError) -> String {
        let usage = "expected sqlite:./herald.db, sqlite:///absolute/path.db or sqlite::memory:"
        guard url.hasPrefix("sqlite:") else {
            throw StoreError(code: .invalidDatabaseURL, message: "unsupported database URL scheme; \(usage)")
        }
        var rest = String(url.dropFirst("sqlite:".count))
        if rest == ":memory:" { return ":memory:" }
        if rest.hasPrefix("//") {
            rest.removeFirst(2)
            guard rest.hasPrefix("/") else {
                throw StoreError(code: .invalidDatabaseURL, message: "sqlite:// takes an absolute path; \(usage)")
            }
        }
        guard !rest.isEmpty, !rest.hasSuffix("/") else {
            throw StoreError(code: .invalidDatabaseURL, message: "missing database file; \(usage)")
        }
        return rest
    }

    // MARK: Migrations

    /// Applies pending migrations, each in its own transaction, and returns every version this
    /// store instance applied, at open or now: `[]` when the database was already current.
    @discardableResult
    package func migrate() throws -> [Int] {
        try appliedMigrations + pool.withWriterBlocking { db in try Migration.apply(on: db) }
    }

    /// The versions recorded in `schema_migrations`, ascending.
    package func schemaVersions() throws -> [Int] {
        try pool.readBlocking { db in try Migration.recorded(on: db) }
    }

    /// The query plan SQLite picks for `sql` (the `detail` column of `EXPLAIN QUERY PLAN`).
    func queryPlan(_ sql: SQL) throws -> [String] {
        try pool.readBlocking { db in
            try db.query("EXPLAIN QUERY PLAN \(sql)") { row throws(StoreError) in try row.text("detail") }
        }
    }

    // MARK: Access

    package func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await pool.write(body)
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await pool.read(snapshot: false, body)
    }

    package func readStatement<T: Sendable>(
        _ sql: SQL, capacity: Int, _ map: @escaping @Sendable (SQLiteRow) throws(StoreError) -> T
    ) async throws -> [T] {
        try await read { db in try db.query(sql, capacity: capacity, map) }
    }

    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await pool.read(snapshot: true, body)
    }

    /// Runs `body` on the writer outside any transaction, blocking the caller: for tests that
    /// shape the database underneath the store.
    func withWriterBlocking<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try pool.withWriterBlocking(body)
    }
}

/// This process is the only writer: every committed change comes from the writer connection's
/// transactions, through the store's ``ChangeFeed``.
extension SQLiteStore: LiveChangeSource {
    package func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws {
        feed.observe(handler)
    }

    package func stopWatchingChanges() {
        feed.observe(nil)
    }
}
