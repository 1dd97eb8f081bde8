import Foundation
import HeraldStore

/// Opens the store a database URL names.
public enum StoreFactory {
    public static func open(url: String) throws -> any HeraldStore {
        guard !PostgresStore.isPostgresURL(url) else { throw IncompleteStore() }
        return try SQLiteStore.open(url: url)
    }

    /// Why a `postgres://` URL cannot be served yet (issue 6): the PostgreSQL store holds the
    /// schema but not yet every operation a server needs.
    struct IncompleteStore: Error, CustomStringConvertible {
        var description: String {
            "the PostgreSQL store cannot serve yet: it does not implement \(PostgresStore.missingOperations); "
                + "`herald migrate --database postgres://...` applies the schema, serve with a sqlite: URL"
        }
    }
}
