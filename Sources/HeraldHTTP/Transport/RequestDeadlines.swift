import Synchronization

/// In-flight requests and when they time out, checked by one sweeping task.
///
/// A timer task per request (sleep, then usually cancelled) cost as much as a small handler;
/// one sweep over the few in-flight requests every `interval` costs next to nothing. A request
/// times out between `timeout` and `timeout + interval` after its handler started.
final class RequestDeadlines: Sendable {
    let timeout: Duration
    let interval: Duration
    private let entries = Mutex<[ObjectIdentifier: (deadline: ContinuousClock.Instant, request: ConnectionRequest)]>([:]
    )
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    init(timeout: Duration) {
        self.timeout = timeout
        self.interval = max(min(timeout / 5, .milliseconds(100)), .milliseconds(5))
    }

    func track(_ request: ConnectionRequest) {
        entries.withLock { $0[request.identifier] = (.now + timeout, request) }
    }

    func forget(_ request: ConnectionRequest) {
        _ = entries.withLock { $0.removeValue(forKey: request.identifier) }
    }

    /// Starts sweeping; `expired` is called once for each request past its deadline.
    func start(expired: @escaping @Sendable (ConnectionRequest) -> Void) {
        let interval = interval
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                for request in self.takeExpired(at: .now) { expired(request) }
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

    private func takeExpired(at now: ContinuousClock.Instant) -> [ConnectionRequest] {
        entries.withLock { entries in
            let expired = entries.filter { $0.value.deadline <= now }
            for key in expired.keys { entries[key] = nil }
            return expired.values.map(\.request)
        }
    }
}
