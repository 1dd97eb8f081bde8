import Synchronization

/// Counts the C handles of one HTTP/2 client (libcurl's, or nghttp2's and OpenSSL's) that are
/// still allocated, so tests can prove that every handle is freed.
package final class HandleCounter: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// Handles allocated and not yet freed.
    package var live: Int { count.load(ordering: .relaxed) }

    package func allocated() { count.add(1, ordering: .relaxed) }
    package func freed() { count.subtract(1, ordering: .relaxed) }
}
