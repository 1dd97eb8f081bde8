import Foundation
import HeraldLog

/// Opens the store a database URL names: `postgres://` or `postgresql://` is the shared
/// PostgreSQL store, anything else SQLite.
public enum StoreFactory {
    /// Connects and migrates. A PostgreSQL connection and its migrations block the calling
    /// thread; this runs once, at start-up, before anything else is served. `poolSize` bounds
    /// the PostgreSQL store's connections; `logger` is where the store reports what goes wrong
    /// outside any request (the PostgreSQL listener's lost sessions and reconnects).
    public static func open(
        url: String, poolSize: Int = PostgresPoolSettings().size, logger: Logger = .disabled
    ) throws -> any HeraldStore {
        if PostgresStore.isPostgresURL(url) {
            return try PostgresStore.open(url: url, pool: PostgresPoolSettings(size: poolSize), logger: logger)
        }
        return try SQLiteStore.open(url: url)
    }
}
