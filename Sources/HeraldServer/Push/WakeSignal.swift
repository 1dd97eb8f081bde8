import FoundationEssentials
import Synchronization

/// Wakes the delivery worker: a publish that wrote delivery rows calls ``wake()``; the worker
/// sleeps in ``wait(timeout:)`` until then or until the timeout. Wakes coalesce.
///
/// Each wait has its own id, and its timer ends that wait only: a timer that outlives its wait
/// (the wait ended by a wake, the timer cancelled) must not end the next one, or every wait
/// after the first early wake would return at once and the worker would spin.
final class WakeSignal: Sendable {
    private struct State {
        /// A wake arrived while nobody waited: the next wait returns at once.
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        /// A wait whose time ran out (or whose task was cancelled) before it began to wait.
        var expired: UInt64?
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Ends the current wait, or the next one at once when nobody waits.
    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns after a ``wake()``, after `timeout`, or when the task is cancelled.
    func wait(timeout: Duration) async {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        let timer = Task { [weak self] in
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return  // the wait is over: this timer must not end another one
            }
            self?.end(id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.pending || state.expired == id {
                        state.pending = false
                        state.expired = nil
                        return true
                    }
                    state.waiter = (id, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            end(id)
        }
    }

    /// Ends wait `id`: at once when it waits, else as soon as it begins. Other waits are untouched.
    private func end(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter, waiter.id == id else {
                if state.lastID == id { state.expired = id }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}

/// The earliest retry a worker scheduled and has not yet looked for: the delivery worker and the
/// webhook worker sleep on their ``WakeSignal`` until it, at most their wake interval.
final class EarliestRetry: Sendable {
    private let next = Mutex<Date?>(nil)

    /// Notes a retry scheduled at `at`.
    func schedule(_ at: Date) {
        next.withLock { next in next = min(next ?? at, at) }
    }

    /// How long to sleep from `now`: until the earliest retry scheduled since the last call, at
    /// most `interval`. Forgets that retry (the worker looks for it when it wakes).
    func sleepTime(atMost interval: Duration, now: Date) -> Duration {
        let retry = next.withLock { next in
            defer { next = nil }
            return next
        }
        guard let retry else { return interval }
        let seconds = max(0, retry.timeIntervalSince(now))
        return min(interval, .milliseconds(Int64(seconds * 1000)))
    }
}
