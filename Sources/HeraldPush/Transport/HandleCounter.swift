import Synchronization

/// Counts the libcurl handles of one client that are still allocated, so tests can prove that
/// every handle is freed.
final class HandleCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Handles allocated and not yet freed.
    var live: Int { count.load(ordering: .relaxed) }

    func allocated() { count.add(1, ordering: .relaxed) }
    func freed() { count.subtract(1, ordering: .relaxed) }
}
