import Synchronization

/// The post-commit change feed of one store, in the style of GRDB's `TransactionObserver`: the
/// statements announce each change a user can see inside their transaction
/// (``StoreConnection/announce(_:)``); once the transaction commits the feed hands the changes to
/// its observer, in commit order; a rollback drops them. Every write reaches the live hub this
/// way, so no route or job has to remember to tell it.
final class ChangeFeed: Sendable {
    private let observer = Mutex<(@Sendable (LiveChange) -> Void)?>(nil)

    /// Starts (or with nil stops) handing committed changes to `handler`.
    func observe(_ handler: (@Sendable (LiveChange) -> Void)?) {
        observer.withLock { $0 = handler }
    }

    /// Changes of a transaction that committed (or of a statement run outside one).
    func committed(_ changes: [LiveChange]) {
        guard !changes.isEmpty, let handler = observer.withLock({ $0 }) else { return }
        for change in changes { handler(change) }
    }
}

/// The changes announced by the transaction in progress on one connection (used only on the
/// connection's own thread or queue, like the connection).
struct PendingChanges {
    private var changes: [LiveChange] = []
    private var inTransaction = false

    mutating func begin() {
        changes = []
        inTransaction = true
    }

    mutating func announce(_ change: LiveChange, to feed: ChangeFeed?) {
        if inTransaction { changes.append(change) } else { feed?.committed([change]) }
    }

    /// The transaction committed: its changes go to the feed.
    mutating func commit(to feed: ChangeFeed?) {
        let committed = changes
        changes = []
        inTransaction = false
        feed?.committed(committed)
    }

    /// The transaction rolled back: nothing of it happened.
    mutating func rollback() {
        changes = []
        inTransaction = false
    }
}
