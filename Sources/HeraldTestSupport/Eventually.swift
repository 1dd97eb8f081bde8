/// Re-checks `condition` every `interval` until it holds, for state that no test clock or
/// notification reaches (other processes, sockets, C threads); throws ``TimedOut`` naming
/// `what` once `limit` of real time has passed. `limit` bounds real I/O; it is not a pause.
public func eventually(
    _ what: String, within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    guard try await becomesTrue(within: limit, every: interval, condition) else {
        throw TimedOut(what: what, limit: limit)
    }
}

/// ``eventually(_:within:every:_:)`` for a caller that asserts on what it saw last: answers
/// whether `condition` held before `limit` passed, instead of throwing.
public func becomesTrue(
    within limit: Duration = .seconds(10), every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let end = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < end else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}

/// ``eventually(_:within:every:_:)`` gave up.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration

    public var description: String { "timed out after \(limit) waiting until \(what)" }
}
