import Observation

/// Waits until `condition` holds, re-checking it each time an observed property it reads
/// changes (Observation), never on a timer; fails after `limit` of real time, a bound on real
/// I/O, not a pause.
@MainActor
func eventually(
    _ what: String, within limit: Duration = .seconds(10), _ condition: @escaping @MainActor () -> Bool
) async throws {
    let start = ContinuousClock.now
    while true {
        let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let holds = withObservationTracking {
            condition()
        } onChange: {
            continuation.yield()
        }
        if holds { return }
        let remaining = limit - (ContinuousClock.now - start)
        guard remaining > .zero else { throw EndToEndError.timedOut(what) }
        try await within(remaining, what) {
            var iterator = changes.makeAsyncIterator()
            _ = await iterator.next()
        }
    }
}
