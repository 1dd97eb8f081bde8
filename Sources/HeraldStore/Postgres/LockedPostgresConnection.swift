import Synchronization

/// One PostgreSQL connection behind its own lock: whoever holds the lock is the only user.
final class LockedPostgresConnection: Sendable {
    private let mutex: Mutex<PostgresConnection>

    init(_ connection: consuming sending PostgresConnection) {
        mutex = Mutex(connection)
    }

    func withConnection<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try mutex.withLock { connection in try body(connection) }
    }
}
