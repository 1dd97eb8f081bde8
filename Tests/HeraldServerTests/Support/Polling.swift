import Testing

/// Polls `condition` every 50 ms until it holds; fails the test once `deadline` has passed.
/// For real processes and sockets, where no test clock can be moved.
func poll(_ what: String, deadline: Duration, _ condition: () async throws -> Bool) async throws {
    let end = ContinuousClock.now + deadline
    while try await !condition() {
        try #require(ContinuousClock.now < end, "timed out waiting until \(what)")
        try await Task.sleep(for: .milliseconds(50))
    }
}
