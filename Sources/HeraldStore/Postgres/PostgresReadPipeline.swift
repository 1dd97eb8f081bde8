import Synchronization

/// One-statement reads sent together: once every connection of the pool is busy, the reads that
/// arrive queue up, and the next connection to come back sends them all at once in libpq's
/// pipeline mode (``PostgresConnection/pipeline(_:)``).
///
/// Each read sent alone costs a round trip: a wake-up of its connection's thread, of its server
/// process and of the request's task again. Sent together, a batch costs one of each, and the
/// server answers its statements back to back. A read that arrives while a connection is free
/// goes out at once on it, as any call would, so a slow read never holds up others while the pool
/// has room; batches form when it has none, at most ``PostgresPoolSettings/pipelineDepth`` reads
/// each (1 sends every read alone).
///
/// A read waits for a connection at most the pool's ``PostgresPoolSettings/checkoutTimeout``,
/// counted from when it was queued, then fails as a call does that found no free connection; a
/// read whose task is cancelled while it waits leaves the queue. It sees what was committed when
/// it ran, as in ``PostgresStore/read(_:)``; a batch whose session is lost runs once more on a
/// new one (reads change nothing), then fails every read in it.
final class PostgresReadPipeline: Sendable {
    /// A read waiting for its batch: its statement, when it was queued, and what to do with its
    /// result (on the connection's queue, while the result lives).
    private struct Read {
        let id: UInt64
        let queued: ContinuousClock.Instant
        let sql: SQL
        let finish: @Sendable (Result<PostgresResult, any Error>) -> Void
    }

    private struct State {
        var pending: [Read] = []
        var nextID: UInt64 = 0
        /// Drains running: taking batches, waiting for a connection, or sending.
        var running = 0
        /// Drains started that have not taken their first batch yet (they will take what waits).
        var starting = 0
        var statistics = Statistics()
    }

    /// What was sent, for tests and figures.
    struct Statistics: Equatable {
        var batches = 0
        var statements = 0
        var largestBatch = 0
    }

    private let pool: PostgresConnectionPool
    private let depth: Int
    private let state = Mutex(State())

    init(pool: PostgresConnectionPool) {
        self.pool = pool
        self.depth = pool.settings.pipelineDepth
    }

    var statistics: Statistics { state.withLock { $0.statistics } }

    /// Reads waiting for a batch.
    var waitingCount: Int { state.withLock { $0.pending.count } }

    /// Runs `sql`, which only reads, in the next batch and maps its rows on the connection's queue.
    func read<T: Sendable>(
        _ sql: SQL, capacity _: Int, _ map: @escaping @Sendable (PostgresRow) throws(StoreError) -> T
    ) async throws -> [T] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let finish: @Sendable (Result<PostgresResult, any Error>) -> Void = { answer in
                    continuation.resume(with: Result { () throws -> [T] in try answer.get().rows(map) })
                }
                // Checked under the lock: a cancellation before the read is queued is seen here,
                // one after finds it queued.
                let drains = state.withLock { state -> Int? in
                    if Task.isCancelled { return nil }
                    // Stamped under the lock, so the queue is in the order of its stamps.
                    state.pending.append(Read(id: id, queued: pool.timer.now(), sql: sql, finish: finish))
                    return startDrains(&state)
                }
                guard let drains else { return continuation.resume(throwing: CancellationError()) }
                start(drains)
            }
        } onCancel: {
            let read = state.withLock { state -> Read? in
                guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return nil }
                return state.pending.remove(at: index)
            }
            read?.finish(.failure(CancellationError()))
        }
    }

    /// How many drains to start now: one for every `depth` reads no starting drain will take, so
    /// a read finds a connection of its own while the pool has one.
    private func startDrains(_ state: inout State) -> Int {
        var started = 0
        while state.running < pool.settings.size, state.pending.count > state.starting * depth {
            state.running += 1
            state.starting += 1
            started += 1
        }
        return started
    }

    private func start(_ drains: Int) {
        for _ in 0..<drains {
            Task { await drain() }
        }
    }

    /// Sends batches until no read waits: on one connection of the pool, batch after batch
    /// without leaving its queue, until another call waits for a connection (then this drain
    /// waits its turn again). A batch whose session is lost is sent once more on a new one.
    private func drain() async {
        // The batch in hand, how many times it was sent, and whether this is its second go; the
        // drain's task and the body it runs on the connection's queue take turns with it, never
        // at once.
        let carried = Mutex<(batch: [Read], sent: Int, again: Bool)?>(nil)
        var first = true
        while true {
            let batch: [Read]
            if let held = carried.withLock({ $0?.batch }) {
                batch = held
            } else {
                guard let next = take(first: first) else { return }
                first = false
                carried.withLock { $0 = (next, 0, false) }
                batch = next
            }
            do {
                let more = try await pool.run(.readsRetriedByCaller, checkoutTimeout: timeLeft(batch)) { [self] db in
                    while let batch = carried.withLock({ carried in
                        carried?.sent += 1
                        return carried?.batch
                    }) {
                        let answers = try db.pipeline(batch.map(\.sql))
                        carried.withLock { $0 = nil }
                        for (read, answer) in zip(batch, answers) { read.finish(answer.mapError { $0 }) }
                        // Another call waits for a connection: this one goes back to the pool.
                        if pool.waitingCount > 0 { return true }
                        guard let next = take(first: false) else { return false }
                        carried.withLock { $0 = (next, 0, false) }
                    }
                    return true
                }
                if !more { return }
            } catch {
                // Sent once and lost with its session: once more, on a new one. Otherwise (never
                // sent: no connection came free in time, or none could be opened; or this was its
                // second go, whatever failed) every read in it fails.
                let failed = carried.withLock { carried -> [Read]? in
                    guard let held = carried else { return nil }
                    if !held.again, held.sent == 1, (error as? StoreError)?.isUnavailable == true {
                        carried?.again = true
                        return nil
                    }
                    carried = nil
                    return held.batch
                }
                for read in failed ?? [] { read.finish(.failure(error)) }
            }
        }
    }

    /// How long `batch` may still wait for a connection: what its oldest read has left.
    private func timeLeft(_ batch: [Read]) -> Duration {
        guard let oldest = batch.first else { return .zero }
        return max(.zero, pool.settings.checkoutTimeout - (pool.timer.now() - oldest.queued))
    }

    /// The next batch (the oldest reads, at most `depth`), or nil when none waits and this drain
    /// stops. Reads that already waited the whole checkout timeout fail here.
    private func take(first: Bool) -> [Read]? {
        let now = pool.timer.now()
        let timeout = pool.settings.checkoutTimeout
        let (batch, overdue, drains) = state.withLock { state -> ([Read]?, [Read], Int) in
            if first { state.starting -= 1 }
            let overdue = state.pending.prefix { now - $0.queued >= timeout }
            state.pending.removeFirst(overdue.count)
            guard !state.pending.isEmpty else {
                state.running -= 1
                return (nil, Array(overdue), 0)
            }
            let count = min(depth, state.pending.count)
            let batch = Array(state.pending.prefix(count))
            state.pending.removeFirst(count)
            state.statistics.batches += 1
            state.statistics.statements += count
            state.statistics.largestBatch = max(state.statistics.largestBatch, count)
            return (batch, Array(overdue), startDrains(&state))
        }
        for read in overdue { read.finish(.failure(pool.timeoutError)) }
        start(drains)
        return batch
    }
}
