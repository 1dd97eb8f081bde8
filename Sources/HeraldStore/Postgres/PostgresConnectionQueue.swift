import Dispatch

/// One PostgreSQL connection used only from its own serial dispatch queue.
///
/// A libpq call blocks for a network round trip, or longer while it waits for a row or an
/// advisory lock another session holds. On the queue's thread that wait blocks nobody else;
/// on one of Swift's few cooperative threads it would stall every task of the process.
final class PostgresConnectionQueue: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` is only touched by blocks running on `queue`,
    // which is serial, so exactly one thread uses it at a time.
    private let connection: PostgresConnection
    private let queue: DispatchQueue

    init(_ connection: PostgresConnection) {
        self.connection = connection
        self.queue = DispatchQueue(label: "herald.postgres.connection")
    }

    /// Runs `body` on the queue and suspends, without blocking a thread, until it is done.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body(self.connection) })
            }
        }
    }

    /// Runs `body` on the queue and blocks the caller until it is done: for opening the store
    /// and `herald migrate`, never from a request.
    func runBlocking<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try queue.sync { try body(connection) }
    }
}
