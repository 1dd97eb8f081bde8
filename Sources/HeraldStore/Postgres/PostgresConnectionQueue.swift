import Dispatch

/// One place in the pool: a serial dispatch queue and the PostgreSQL connection used only from it.
///
/// A libpq call blocks for a network round trip, or longer while it waits for a row or an
/// advisory lock another session holds. On the queue's thread that wait blocks nobody else;
/// on one of Swift's few cooperative threads it would stall every task of the process.
///
/// The connection is made on first use and replaced on the next use after it was lost (the
/// server restarted, the network failed, the session was terminated), so a lost database
/// costs the calls running at that moment and nothing after it comes back.
final class PostgresConnectionQueue: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` is only touched by blocks running on `queue`,
    // which is serial, so exactly one thread uses it at a time.
    private var connection: PostgresConnection?
    private let connect: @Sendable () throws(StoreError) -> PostgresConnection
    private let queue = DispatchQueue(label: "herald.postgres.connection")

    /// `connect` opens a new connection; it runs on the queue, when one is needed.
    init(connect: @escaping @Sendable () throws(StoreError) -> PostgresConnection) {
        self.connect = connect
    }

    /// Runs `body` on the queue and suspends, without blocking a thread, until it is done.
    ///
    /// When the connection is lost under `body`, the call fails with
    /// ``StoreError/Code/unavailable``, unless `work` says it is certain that running `body`
    /// again on a new connection changes nothing that may have been committed (see
    /// ``PostgresWork``): then it runs once more.
    ///
    /// `body` is released before the caller resumes, so a caller may pass a closure made with
    /// `withoutActuallyEscaping` (the preferences update does).
    func run<T: Sendable>(
        _ work: PostgresWork, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let job = Job(body)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = self.attempt(work, job)
                job.release()
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `body` on the queue and blocks the caller until it is done: for opening the store
    /// and `herald migrate`, never from a request.
    func runBlocking<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try queue.sync { try body(usableConnection()) }
    }

    /// On the queue: runs the job, and once more on a new connection when that is safe.
    private func attempt<T>(_ work: PostgresWork, _ job: Job<T>) -> Result<T, any Error> {
        var retried = false
        while true {
            let connection: PostgresConnection
            do {
                connection = try usableConnection()
            } catch {
                return .failure(error)
            }
            let sentBefore = connection.statementsSent
            let result = Result { try job.run(connection) }
            guard case .failure(let error as StoreError) = result, error.isUnavailable else { return result }
            // The session is gone (or was given up): the next call, or the retry, opens another.
            self.connection = nil
            guard !retried, work.mayRunAgain(afterSending: connection.statementsSent - sentBefore) else {
                return result
            }
            retried = true
        }
    }

    /// On the queue: the open connection, or a new one when there is none or it cannot be reused.
    private func usableConnection() throws(StoreError) -> PostgresConnection {
        if let connection, connection.isReusable { return connection }
        connection = nil
        let fresh = try connect()
        connection = fresh
        return fresh
    }

    /// A closure run at most twice, then dropped.
    private final class Job<T>: @unchecked Sendable {
        // @unchecked Sendable is safe: `body` is set before the job is queued, and used and
        // released only by the one block that runs it on the serial queue.
        private var body: ((PostgresConnection) throws -> T)?

        init(_ body: @escaping @Sendable (PostgresConnection) throws -> T) {
            self.body = body
        }

        func run(_ connection: PostgresConnection) throws -> T {
            guard let body else { preconditionFailure("a connection job ran after its release") }
            return try body(connection)
        }

        func release() { body = nil }
    }
}

/// What a call does with its connection, which decides whether it may run again on a new
/// connection after the first was lost under it.
enum PostgresWork: Sendable {
    /// Statements that only read: running them again changes nothing, so a call that lost its
    /// connection runs once more on a new one.
    case read
    /// One transaction (`BEGIN` first): it runs again only when the connection was lost on
    /// `BEGIN` itself, before any statement of the body was sent, so nothing of it can have
    /// been committed. Lost any later (even before `COMMIT`) it fails as unavailable and the
    /// caller decides: the store never repeats a write behind its back.
    case transaction

    func mayRunAgain(afterSending statements: Int) -> Bool {
        switch self {
        case .read: true
        case .transaction: statements <= 1
        }
    }
}
