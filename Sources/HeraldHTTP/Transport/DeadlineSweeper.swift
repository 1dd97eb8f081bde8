import Synchronization

/// Things with a deadline (running handlers, connections still sending their request), checked
/// by one sweeping task.
///
/// A timer task per entry (sleep, then usually cancelled) cost as much as a small handler; one
/// sweep over the entries every `interval` costs next to nothing. An entry expires between its
/// deadline and `interval` after it.
final class DeadlineSweeper<Entry: AnyObject & Sendable>: Sendable {
    let interval: Duration
    private let entries = Mutex<[ObjectIdentifier: (deadline: ContinuousClock.Instant, entry: Entry)]>([:])
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    /// `shortest` is the smallest timeout it will track: the sweep runs often enough for it.
    init(shortest: Duration) {
        self.interval = max(min(shortest / 5, .milliseconds(100)), .milliseconds(5))
    }

    /// Tracks `entry` until `deadline`, replacing any deadline it had.
    func track(_ entry: Entry, until deadline: ContinuousClock.Instant) {
        entries.withLock { $0[ObjectIdentifier(entry)] = (deadline, entry) }
    }

    func forget(_ entry: Entry) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// Starts sweeping; `expired` is called once for each entry past its deadline.
    func start(expired: @escaping @Sendable (Entry) -> Void) {
        let interval = interval
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                for entry in self.takeExpired(at: .now) { expired(entry) }
            }
        }
        sweeper.withLock { $0 = task }
    }

    func stop() {
        sweeper.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    private func takeExpired(at now: ContinuousClock.Instant) -> [Entry] {
        entries.withLock { entries in
            let expired = entries.filter { $0.value.deadline <= now }
            for key in expired.keys { entries[key] = nil }
            return expired.values.map(\.entry)
        }
    }
}
