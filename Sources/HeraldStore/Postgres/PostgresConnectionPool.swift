import Dispatch
import Synchronization

/// A bounded set of PostgreSQL connections, each on its own serial queue
/// (``ConnectionQueue``), lent out one call at a time.
///
/// Connections are opened as calls need them, up to ``PostgresPoolSettings/size``. A call
/// made while every one is busy waits, first come first served, for one to come back; past
/// ``PostgresPoolSettings/checkoutTimeout`` it fails with ``StoreError/Code/unavailable``
/// rather than hang. A transaction keeps its connection from `BEGIN` to `COMMIT`.
final class PostgresConnectionPool: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<ConnectionQueue<PostgresConnection>, any Error>
    }

    private struct State {
        var idle: [ConnectionQueue<PostgresConnection>] = []
        var opened = 0
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
    }

    let settings: PostgresPoolSettings
    private let connect: @Sendable () throws(StoreError) -> PostgresConnection
    /// Ends waits for a free connection, and tells the time.
    let timer: PostgresPoolTimer
    private let state = Mutex(State())

    /// A pool whose connections `connect` opens; `timer` ends waits for a free connection.
    init(
        settings: PostgresPoolSettings, timer: PostgresPoolTimer = .dispatch,
        connect: @escaping @Sendable () throws(StoreError) -> PostgresConnection
    ) {
        self.settings = settings
        self.timer = timer
        self.connect = connect
    }

    /// Places opened so far (each holds a connection, or makes one on its next use).
    var openedCount: Int { state.withLock { $0.opened } }

    /// Calls waiting for a free connection.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` on a connection of the pool, waiting for one to be free when all are busy: at
    /// most `checkoutTimeout` (the settings' when nil), then it fails with ``timeoutError``.
    func run<T: Sendable>(
        _ work: ConnectionWork, checkoutTimeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let queue = try await checkout(timeout: checkoutTimeout ?? settings.checkoutTimeout)
        defer { checkin(queue) }
        return try await queue.run(work, body)
    }

    /// Runs `body` on a connection and blocks the caller until it is done: for opening the
    /// store and `herald migrate`, never from a request. When every connection is busy it uses
    /// one of its own, closed afterwards.
    func runBlocking<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let lent = state.withLock { state in takeOrOpen(&state) }
        guard let lent else {
            return try ConnectionQueue(label: "herald.postgres.connection", connect: connect).runBlocking(body)
        }
        defer { checkin(lent) }
        return try lent.runBlocking(body)
    }

    // MARK: Lending

    private func checkout(timeout: Duration) async throws -> ConnectionQueue<PostgresConnection> {
        if let queue = state.withLock({ state in takeOrOpen(&state) }) { return queue }
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Checked under the lock: a connection returned, or a cancellation, between the
                // first look and now is seen here.
                let outcome = state.withLock { state -> Result<ConnectionQueue<PostgresConnection>, any Error>? in
                    if let queue = takeOrOpen(&state) { return .success(queue) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    timer.after(timeout) { [self] in
                        endWait(id, throwing: timeoutError)
                    }
                }
            }
        } onCancel: {
            endWait(id, throwing: CancellationError())
        }
    }

    /// An idle connection, or a new place when fewer than `size` are open; `nil` when all are busy.
    private func takeOrOpen(_ state: inout State) -> ConnectionQueue<PostgresConnection>? {
        if let queue = state.idle.popLast() { return queue }
        guard state.opened < settings.size else { return nil }
        state.opened += 1
        return ConnectionQueue(label: "herald.postgres.connection", connect: connect)
    }

    /// Hands `queue` to the longest waiting call, or keeps it for the next.
    private func checkin(_ queue: ConnectionQueue<PostgresConnection>) {
        let waiter = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.idle.append(queue)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: queue)
    }

    /// Fails the wait `id` if it is still waiting (it may have been served meanwhile).
    private func endWait(_ id: UInt64, throwing error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// Why a call that found no free connection in time failed.
    var timeoutError: StoreError {
        StoreError(
            code: .unavailable,
            message:
                "no PostgreSQL connection was free within \(settings.checkoutTimeout) (all \(settings.size) busy)")
    }
}

/// Runs an action after a delay (the end of a wait for a free connection), and tells the time
/// (how long a read has waited for its batch).
struct PostgresPoolTimer: Sendable {
    var after: @Sendable (Duration, @escaping @Sendable () -> Void) -> Void
    var now: @Sendable () -> ContinuousClock.Instant = { .now }

    /// Real time, on a global dispatch queue.
    static let dispatch = PostgresPoolTimer { delay, action in
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: action)
    }
}
