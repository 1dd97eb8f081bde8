import Foundation
import HeraldKit
import Synchronization

/// A clock that moves only when a test says so. Sleepers wake in deadline order; after each
/// wake-up the main actor runs the woken work before time moves on, so a test reads the
/// state a person would see at that moment.
public final class TestClock: Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let start: Date
    private let state = Mutex(State())

    /// A clock whose wall time starts at `start`.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.start = start
    }

    /// The wall time now.
    public var now: Date {
        start.addingTimeInterval(Self.seconds(state.withLock { $0.elapsed }))
    }

    /// Time moved since the clock was made.
    public var elapsed: Duration { state.withLock { $0.elapsed } }

    /// How many sleeps are waiting.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// This clock as the models' dependency.
    public var dependency: HeraldClock {
        HeraldClock(now: { [self] in now }, sleep: { [self] duration in try await sleep(for: duration) })
    }

    /// Suspends until the clock has moved `duration` on. Registration happens on the main
    /// actor before the first suspension, so a sleep started before `advance` is always seen.
    @MainActor public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock: a cancellation that ran its handler before this
                // registration has already set the flag.
                let outcome = state.withLock { state -> Result<Bool, CancellationError> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(true) }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: state.elapsed + duration, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `duration`, waking every sleeper whose deadline falls inside it, in
    /// order, and letting the main actor run what each one wakes.
    @MainActor public func advance(by duration: Duration = .zero) async {
        await settle()
        let target = state.withLock { $0.elapsed } + duration
        while true {
            let due = state.withLock { state -> Sleeper? in
                let ready = state.sleepers.enumerated().filter { $0.element.deadline <= target }
                guard
                    let first = ready.min(by: {
                        ($0.element.deadline, $0.element.id) < ($1.element.deadline, $1.element.id)
                    })
                else { return nil }
                state.elapsed = max(state.elapsed, first.element.deadline)
                return state.sleepers.remove(at: first.offset)
            }
            guard let due else { break }
            due.continuation.resume()
            await settle()
        }
        state.withLock { $0.elapsed = target }
        await settle()
    }

    /// Wakes every sleeper, however far away, moving time to the last deadline.
    @MainActor public func run() async {
        while let last = state.withLock({ $0.sleepers.map(\.deadline).max() }) {
            await advance(by: last - elapsed)
        }
    }

    /// Lets work queued on the main actor run: each yield lets every job queued before it run,
    /// so a chain of up to ``settleYields`` dependent main-actor hops (a task that starts a task
    /// that resumes a continuation, ...) completes. A model's page load takes about four hops.
    @MainActor public func settle() async {
        for _ in 0..<Self.settleYields { await Task.yield() }
    }

    public static let settleYields = 200

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
