/// Live updates across processes: every transaction that logs stream events (or changes counts)
/// NOTIFYs, and each store holds one more connection, its listener, that hears them all.
extension PostgresStore: LiveChangeSource {
    public func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws {
        let started = try PostgresListener(url: url, logger: logger, handler: handler)
        listener.withLock { listener in
            precondition(listener == nil, "live changes are already watched")
            listener = started
        }
        started.start()
    }

    public func stopWatchingChanges() {
        listener.withLock { listener in
            defer { listener = nil }
            return listener
        }?.stop()
    }
}
