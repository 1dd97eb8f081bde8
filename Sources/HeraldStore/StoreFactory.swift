import Dispatch
import FoundationEssentials
import HeraldLog
import HeraldThreads

/// Opens the store a database URL names: `postgres://` or `postgresql://` is the shared
/// PostgreSQL store, anything else SQLite.
public enum StoreFactory {
    /// Connects and migrates, on a dispatch thread: opening a file, a libpq connection and the
    /// migrations block, and must not stall Swift's cooperative pool. `postgres` sizes the
    /// PostgreSQL store's connections and its read pipelines; `logger` is where the store reports what goes wrong
    /// outside any request (the PostgreSQL listener's lost sessions and reconnects).
    public static func open(
        url: String, postgres: PostgresPoolSettings = PostgresPoolSettings(), logger: Logger = .disabled
    ) async throws -> any HeraldStore {
        try await offCooperativePool { () throws -> any HeraldStore in
            if PostgresStore.isPostgresURL(url) {
                return try PostgresStore.open(url: url, pool: postgres, logger: logger)
            }
            return try SQLiteStore.open(url: url)
        }
    }

    /// `herald migrate`: opens the database (which applies what it lacks, one process at a time
    /// on PostgreSQL) and answers the migration versions applied, `[]` when it was up to date.
    public static func migrate(url: String, logger: Logger = .disabled) async throws -> [Int] {
        try await offCooperativePool {
            if PostgresStore.isPostgresURL(url) {
                return try PostgresStore.open(url: url, pool: PostgresPoolSettings(size: 1), logger: logger).migrate()
            }
            return try SQLiteStore.open(url: url, readers: 0).migrate()
        }
    }
}
