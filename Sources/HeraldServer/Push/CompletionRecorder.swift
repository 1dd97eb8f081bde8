import FoundationEssentials
import HeraldHTTP
import HeraldStore
import Synchronization

/// Writes the delivery worker's outcomes to the store, many per transaction: whatever arrived
/// while the previous write ran, or in the ``gatherTime`` after it, goes into the next one (a
/// group commit). A busy worker makes at most a few hundred writes a second instead of one per
/// delivery; an idle one writes an outcome at once.
///
/// An outcome waiting here is not yet durable: a crash loses it, and its row, still claimed,
/// is sent again once its lease runs out (at-least-once).
final class CompletionRecorder: Sendable {
    /// One outcome waiting to be written, with what its metric needs.
    private struct Pending {
        var completion: DeliveryCompletion
        var provider: String
        var label: String
    }

    private struct State {
        var pending: [Pending] = []
        var finishing = false
        /// ``run()`` waiting for an outcome (no timer: at thousands of waits a second, one
        /// timer per wait costs more than the writes).
        var waiter: CheckedContinuation<Void, Never>?

        /// The waiter, taken out to be resumed.
        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    /// Outcomes written per transaction at most.
    static let maxBatch = 1_000
    /// After a write that was not full, the time outcomes gather before the next. Each
    /// transaction rewrites whole pages (of the rows and of the due index), so writing a
    /// handful of outcomes at a time costs several page writes per delivery.
    static let gatherTime: Duration = .milliseconds(5)

    private let store: any HeraldStore
    private let metrics: PushMetrics
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    init(store: any HeraldStore, metrics: PushMetrics, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.now = now
    }

    /// Queues `completion` for the next write; `label` is its outcome on `/metrics`.
    func add(_ completion: DeliveryCompletion, provider: String, label: String) {
        state.withLock { state in
            state.pending.append(Pending(completion: completion, provider: provider, label: label))
            return state.takeWaiter()
        }?.resume()
    }

    /// Asks ``run()`` to return once everything queued is written.
    func finish() {
        state.withLock { state in
            state.finishing = true
            return state.takeWaiter()
        }?.resume()
    }

    /// Writes batches until ``finish()`` and nothing is left.
    func run() async {
        while true {
            let (batch, finishing) = state.withLock { state in
                let batch = Array(state.pending.prefix(Self.maxBatch))
                state.pending.removeFirst(batch.count)
                return (batch, state.finishing)
            }
            if !batch.isEmpty {
                await write(batch)
                if batch.count < Self.maxBatch && !finishing { try? await Task.sleep(for: Self.gatherTime) }
            } else if finishing {
                return
            } else {
                await waitForOutcome()
            }
        }
    }

    /// Returns once an outcome is queued or ``finish()`` was called.
    private func waitForOutcome() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.pending.isEmpty && !state.finishing else { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func write(_ batch: [Pending]) async {
        do {
            let held = try await store.completeDeliveries(batch.map(\.completion), now: now())
            for (pending, held) in zip(batch, held) where held {
                metrics.recordDelivery(provider: pending.provider, outcome: pending.label)
            }
        } catch {
            logger.warning(
                "recording deliveries failed", metadata: ["count": "\(batch.count)", "error": "\(error)"])
        }
    }
}
