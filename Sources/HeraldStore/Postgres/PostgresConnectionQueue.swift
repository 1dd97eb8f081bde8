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
    ///
    /// `body` is released before the caller resumes, so a caller may pass a closure made with
    /// `withoutActuallyEscaping` (the preferences update does).
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let job = Job(body)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = job.run(self.connection)
                continuation.resume(with: result)
            }
        }
    }

    /// A closure run once, then dropped.
    private final class Job<T>: @unchecked Sendable {
        // @unchecked Sendable is safe: `body` is set before the job is queued and taken once,
        // by the one block that runs it on the serial queue.
        private var body: ((PostgresConnection) throws -> T)?

        init(_ body: @escaping @Sendable (PostgresConnection) throws -> T) {
            self.body = body
        }

        func run(_ connection: PostgresConnection) -> Result<T, any Error> {
            guard let body = body.take() else { preconditionFailure("a connection job ran twice") }
            return Result { try body(connection) }
        }
    }

    /// Runs `body` on the queue and blocks the caller until it is done: for opening the store
    /// and `herald migrate`, never from a request.
    func runBlocking<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try queue.sync { try body(connection) }
    }
}
