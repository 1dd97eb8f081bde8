/// Live updates across processes: every transaction that logs stream events (or changes counts)
/// reports its changes to this store's feed once it commits, and NOTIFYs; each store holds one
/// more connection, its listener, that hears the other processes' (and its own again: the hub
/// catches up from the log, so hearing a change twice costs a read, never a duplicate event).
extension PostgresStore: LiveChangeSource {
    public func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws {
        let started = try PostgresListener(url: url, logger: logger, handler: handler)
        feed.observe(handler)
        listener.withLock { listener in
            precondition(listener == nil, "live changes are already watched")
            listener = started
        }
        started.start()
    }

    public func stopWatchingChanges() {
        feed.observe(nil)
        listener.withLock { listener in
            defer { listener = nil }
            return listener
        }?.stop()
    }
}
