import Foundation

/// Time as the models see it: the wall clock and a sleep. Injected so tests drive every
/// timer (800 ms, 1.2 s, 1.5 s, 3 s, 4 s, ...) by hand.
///
/// Both closures are main-actor isolated: the models live on the main actor, so calling them
/// never hops, and a test clock resumes sleepers in a deterministic order.
public struct HeraldClock: Sendable {
    /// The current wall-clock time.
    public var now: @MainActor @Sendable () -> Date
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    public var sleep: @MainActor @Sendable (_ duration: Duration) async throws -> Void

    public init(
        now: @escaping @MainActor @Sendable () -> Date,
        sleep: @escaping @MainActor @Sendable (_ duration: Duration) async throws -> Void
    ) {
        self.now = now
        self.sleep = sleep
    }

    /// The system clock.
    public static let live = HeraldClock(
        now: { Date() },
        sleep: { duration in try await ContinuousClock().sleep(for: duration) }
    )
}
