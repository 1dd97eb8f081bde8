import FoundationEssentials
import HeraldLog
import HeraldModel
import Synchronization

/// The shared store: one PostgreSQL database that several `herald` processes can use at once.
///
/// It holds a bounded pool of connections (see ``PostgresConnectionPool``), each used from its
/// own serial queue, so no libpq call ever blocks a cooperative thread; a transaction keeps one
/// connection from start to end. A connection the database dropped is replaced on its next
/// use; a call that cannot reach the database fails with ``StoreError/Code/unavailable``.
/// What the store does is ``SQLStore``'s, written once for both databases; what differs is
/// locking, since other processes write at once: read-modify-writes lock their rows, claims
/// skip rows another claimer holds (``StoreConnection/rowLock``, ``StoreConnection/claimLock``).
package final class PostgresStore: SQLStore {
    package typealias Connection = PostgresConnection

    /// The connections of this store (tests look at how many were opened and who waits).
    let pool: PostgresConnectionPool
    /// One-statement reads, sent together on the pool's connections (``readStatement(_:capacity:_:)``).
    let readPipeline: PostgresReadPipeline
    /// Where the store connected, for the live-change listener's own connection.
    let url: String
    /// The live-change listener, while changes are watched.
    let listener = Mutex<PostgresListener?>(nil)
    /// The changes this process's own transactions commit (the listener hears the others').
    let feed: ChangeFeed
    /// The migration versions applied when this store opened (empty when the schema was already current).
    package let appliedMigrations: [Int]
    /// The application's logger: the listener's lost sessions and reconnects go here.
    let logger: Logger

    /// Every migration of the PostgreSQL store, oldest first.
    package static var migrations: [Migration] { Migration.all(.postgres) }

    /// Connects to a `postgres://` or `postgresql://` URL (libpq's URI syntax, e.g.
    /// `postgres://herald@127.0.0.1:5432/herald`) and applies pending migrations. Anything
    /// else throws ``StoreError/Code/invalidDatabaseURL``; a database that cannot be reached
    /// throws ``StoreError/Code/unavailable``.
    package static func open(
        url: String, pool settings: PostgresPoolSettings = PostgresPoolSettings(), logger: Logger = .disabled
    ) throws -> PostgresStore {
        try open(url: url, pool: settings, timer: .dispatch, logger: logger)
    }

    static func open(
        url: String, pool settings: PostgresPoolSettings, timer: PostgresPoolTimer, logger: Logger = .disabled
    ) throws -> PostgresStore {
        guard isPostgresURL(url) else {
            throw StoreError(
                code: .invalidDatabaseURL,
                message: "unsupported database URL scheme; expected postgres://user@host:port/database")
        }
        let connectTimeout = settings.connectTimeoutSeconds
        let feed = ChangeFeed()
        return try PostgresStore(
            url: url, logger: logger, feed: feed,
            pool: PostgresConnectionPool(settings: settings, timer: timer) { () throws(StoreError) in
                let connection = try PostgresConnection(url: url, connectTimeoutSeconds: connectTimeout)
                connection.feed = feed
                return connection
            })
    }

    /// Whether `url` names a PostgreSQL database.
    package static func isPostgresURL(_ url: String) -> Bool {
        url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")
    }

    private init(url: String, logger: Logger, feed: ChangeFeed, pool: PostgresConnectionPool) throws {
        self.logger = logger
        self.feed = feed
        self.url = url
        self.pool = pool
        readPipeline = PostgresReadPipeline(pool: pool)
        appliedMigrations = try pool.runBlocking { db in try Migration.apply(on: db) }
    }

    // MARK: Migrations

    /// Applies pending migrations, each in its own transaction, and returns every version this
    /// store instance applied, at open or now: `[]` when the database was already current.
    @discardableResult
    package func migrate() throws -> [Int] {
        try appliedMigrations + pool.runBlocking { db in try Migration.apply(on: db) }
    }

    /// The versions recorded in `schema_migrations`, ascending.
    package func schemaVersions() throws -> [Int] {
        try pool.runBlocking { db in try Migration.recorded(on: db) }
    }

    // MARK: Access

    /// Runs `body` on a connection of the pool in one transaction. When the connection is lost
    /// after `BEGIN` the call fails as unavailable and is not run again (see ``ConnectionWork``).
    package func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.run(.transaction) { db in try db.transaction { try body(db) } }
    }

    /// Runs `body`, which only reads, on a connection of the pool, each statement in its own
    /// implicit transaction; run once more on a new connection when the first was lost under it.
    package func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await pool.run(.read, body)
    }

    /// Runs `sql`, which only reads, in the next pipeline of reads (``PostgresReadPipeline``):
    /// with the others waiting meanwhile, in one round trip.
    package func readStatement<T: Sendable>(
        _ sql: SQL, capacity: Int, _ map: @escaping @Sendable (PostgresRow) throws(StoreError) -> T
    ) async throws -> [T] {
        try await readPipeline.read(sql, capacity: capacity, map)
    }

    /// Runs `body`, which only reads, in one `REPEATABLE READ` transaction; as a read, run once
    /// more on a new connection when the first was lost under it.
    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws
        -> T
    {
        try await pool.run(.read) { db in try db.snapshot { try body(db) } }
    }
}

/// Live updates across processes: every transaction that logs stream events (or changes counts)
/// reports its changes to this store's feed once it commits, and NOTIFYs; each store holds one
/// more connection, its listener, that hears the other processes' (and its own again: the hub
/// catches up from the log, so hearing a change twice costs a read, never a duplicate event).
extension PostgresStore: LiveChangeSource {
    package func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws {
        let started = try PostgresListener(url: url, logger: logger, handler: handler)
        feed.observe(handler)
        listener.withLock { listener in
            precondition(listener == nil, "live changes are already watched")
            listener = started
        }
        started.start()
    }

    package func stopWatchingChanges() {
        feed.observe(nil)
        listener.withLock { listener in
            defer { listener = nil }
            return listener
        }?.stop()
    }
}
