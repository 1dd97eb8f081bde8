/// A committed change that open live-update streams must hear about, from this process or
/// another one sharing the database.
public enum LiveChange: Sendable, Equatable {
    /// Events of `userIDs` were logged, none after `throughSeq`; their counts changed with them.
    case events(userIDs: [String], throughSeq: Int64)
    /// The counts of `userIDs` changed without a logged event (mark all seen).
    case counts(userIDs: [String])
    /// Changes may have been missed (the listener lost its connection): every open stream
    /// catches up from the event log.
    case resync
}

/// A store that reports every committed change a user can see (see ``LiveChange``), its own
/// writes' and, on a database several processes share, theirs too, so this process's open
/// streams hear of them: the live hub's one input.
public protocol LiveChangeSource: Sendable {
    /// Starts reporting changes to `handler`, from a thread of the store's own, until
    /// ``stopWatchingChanges()``. Called at most once; throws when the watching cannot be set up.
    func startWatchingChanges(_ handler: @escaping @Sendable (LiveChange) -> Void) throws
    /// Stops reporting (the handler may still be running a call it already had).
    func stopWatchingChanges()
}
