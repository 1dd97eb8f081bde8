import HeraldHTTP2
import Synchronization

/// What callers hand to the transfer loop (new transfers, cancellations, the order to stop),
/// the loop's wake-up, and the counters both sides read.
final class TransferMailbox: Sendable {
    private struct State {
        var queued: [Transfer] = []
        var cancelled: [Int] = []
        var closing = false
        /// Set to nil when the loop has stopped: no wake-up may reach a freed multi handle.
        var multi: CurlMulti?
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        /// The loop has stopped and freed every handle.
        var finished = false
    }

    /// What the loop takes at each turn.
    struct Mail {
        var queued: [Transfer]
        var cancelled: [Int]
        var closing: Bool
    }

    private let state: Mutex<State>
    /// Connections the loop's transfers opened so far.
    let connectionsOpened = Atomic<Int>(0)
    let handles: HandleCounter
    /// Easy handles of finished transfers, for the next ones.
    let pool: EasyHandlePool

    init(multi: CurlMulti, handles: HandleCounter, pool: EasyHandlePool) {
        state = Mutex(State(multi: multi))
        self.handles = handles
        self.pool = pool
    }

    /// Queues `transfer`; false once the client is closing.
    func queue(_ transfer: Transfer) -> Bool {
        state.withLock { state in
            guard !state.closing else { return false }
            // A non-empty mailbox already has a wake-up on its way.
            if state.queued.isEmpty && state.cancelled.isEmpty { Self.wake(state.multi) }
            state.queued.append(transfer)
            return true
        }
    }

    /// Asks the loop to drop the transfer `id`, wherever it is.
    func cancel(_ id: Int) {
        state.withLock { state in
            if state.queued.isEmpty && state.cancelled.isEmpty { Self.wake(state.multi) }
            state.cancelled.append(id)
        }
    }

    /// Asks the loop to stop, failing everything in flight.
    func close() {
        state.withLock { state in
            state.closing = true
            Self.wake(state.multi)
        }
    }

    /// Asks the loop to stop and waits until it has freed every handle.
    func closeAndWait() async {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                guard !state.finished else { return true }
                state.closing = true
                state.stopWaiters.append(continuation)
                Self.wake(state.multi)
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    /// Everything callers sent since the last turn.
    func take() -> Mail {
        state.withLock { state in
            defer {
                state.queued.removeAll()
                state.cancelled.removeAll()
            }
            return Mail(queued: state.queued, cancelled: state.cancelled, closing: state.closing)
        }
    }

    /// The multi handle, for the loop to drive.
    func multiForLoop() -> CurlMulti? {
        state.withLock { $0.multi }
    }

    /// Called by the loop as it ends: later wake-ups go nowhere. Answers the transfers queued
    /// since the last turn, for the loop to fail.
    func stopped() -> [Transfer] {
        state.withLock { state in
            state.multi = nil
            defer { state.queued.removeAll() }
            return state.queued
        }
    }

    /// Called once the loop has let go of every handle: the kept easy handles are freed and
    /// `closeAndWait` callers resume.
    func finished() {
        pool.close()
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.stopWaiters.removeAll() }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func wake(_ multi: CurlMulti?) {
        // A failed wake-up only delays the mail until the loop's next poll times out.
        try? multi?.wakeUp()
    }
}
