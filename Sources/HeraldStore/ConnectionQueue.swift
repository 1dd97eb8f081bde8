import Dispatch
import Synchronization

/// One connection and the serial dispatch queue it is used from, as GRDB's
/// `SerializedDatabase` holds one: the store's one way to run database calls off Swift's
/// cooperative pool. SQLite's writer and readers and each PostgreSQL connection of the pool
/// live in one.
///
/// A database call blocks: SQLite's for a page read or the writer's turn, libpq's for a
/// network round trip, a row or an advisory lock another session holds. On the queue's thread
/// that wait blocks nobody else; on one of Swift's few cooperative threads it would stall every
/// task of the process. Callers suspend until their call is done, and calls run in the order
/// they were queued.
///
/// A connection may be made on first use and is replaced on the next use after it was lost
/// (PostgreSQL: the server restarted, the network failed, the session was terminated), so a
/// lost database costs the calls running at that moment and nothing after it comes back.
final class ConnectionQueue<Connection: StoreConnection>: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` is only touched by blocks running on `queue`,
    // which is serial, so exactly one thread uses it at a time; `queued` is atomic.
    private var connection: Connection?
    private let connect: @Sendable () throws(StoreError) -> Connection
    private let queue: DispatchQueue
    private let queued = Atomic<Int>(0)

    /// `connect` opens a new connection; it runs on the queue, when one is needed. `opened`,
    /// when given, is the first connection (made by the caller, which never touches it again).
    init(
        label: String, opened: consuming sending Connection? = nil,
        connect: @escaping @Sendable () throws(StoreError) -> Connection
    ) {
        self.connection = opened
        self.connect = connect
        self.queue = DispatchQueue(label: label)
    }

    /// Calls queued or running now: the pool lends the least busy of its readers.
    var load: Int { queued.load(ordering: .relaxed) }

    /// Runs `body` on the queue and suspends, without blocking a thread, until it is done.
    ///
    /// When the connection is lost under `body`, the call fails with
    /// ``StoreError/Code/unavailable``, unless `work` says it is certain that running `body`
    /// again on a new connection changes nothing that may have been committed (see
    /// ``ConnectionWork``): then it runs once more.
    ///
    /// `body` is released before the caller resumes, so a caller may pass a closure made with
    /// `withoutActuallyEscaping` (the preferences update does).
    func run<T: Sendable>(
        _ work: ConnectionWork, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        let job = Job(body)
        queued.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                let result = self.attempt(work, job)
                job.release()
                self.queued.subtract(1, ordering: .relaxed)
                continuation.resume(with: result)
            }
        }
    }

    /// Queues `body` and returns at once: for upkeep nobody waits for (SQLite's checkpoints).
    /// `body` gets the connection, or why none could be opened; what fails inside it is its own
    /// to handle.
    func submit(_ body: @escaping @Sendable (Result<Connection, StoreError>) -> Void) {
        queued.add(1, ordering: .relaxed)
        queue.async {
            body(Result { () throws(StoreError) in try self.usableConnection() })
            self.queued.subtract(1, ordering: .relaxed)
        }
    }

    /// Runs `body` on the queue and blocks the caller until it is done: for opening the store,
    /// `herald migrate`, tests and the SQLite writer's own queue (``SQLiteCheckpointer``), never
    /// from a request.
    func runBlocking<T>(_ body: (Connection) throws -> T) throws -> T {
        try queue.sync { try body(usableConnection()) }
    }

    /// On the queue: runs the job, and once more on a new connection when that is safe.
    private func attempt<T>(_ work: ConnectionWork, _ job: Job<T>) -> Result<T, any Error> {
        var retried = false
        while true {
            let connection: Connection
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
    private func usableConnection() throws(StoreError) -> Connection {
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
        private var body: ((Connection) throws -> T)?

        init(_ body: @escaping @Sendable (Connection) throws -> T) {
            self.body = body
        }

        func run(_ connection: Connection) throws -> T {
            guard let body else { preconditionFailure("a connection job ran after its release") }
            return try body(connection)
        }

        func release() { body = nil }
    }
}

/// What a call does with its connection, which decides whether it may run again on a new
/// connection after the first was lost under it.
enum ConnectionWork: Sendable {
    /// Statements that only read: running them again changes nothing, so a call that lost its
    /// connection runs once more on a new one.
    case read
    /// One transaction (`BEGIN` first): it runs again only when the connection was lost on
    /// `BEGIN` itself, before any statement of the body was sent, so nothing of it can have
    /// been committed. Lost any later (even before `COMMIT`) it fails as unavailable and the
    /// caller decides: the store never repeats a write behind its back.
    case transaction
    /// Reads whose caller runs again itself what a lost connection cost it (the read pipeline,
    /// batch by batch): never run again here.
    case readsRetriedByCaller

    func mayRunAgain(afterSending statements: Int) -> Bool {
        switch self {
        case .read: true
        case .transaction: statements <= 1
        case .readsRetriedByCaller: false
        }
    }
}
