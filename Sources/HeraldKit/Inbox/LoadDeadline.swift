/// Runs `operation`, unless `clock` passes `limit` first: then the operation is cancelled and a
/// ``HeraldAPIError/Kind/timeout`` error is thrown. A screen that waits on the network uses it so
/// a request that never answers still ends in an error the person can retry.
///
/// Both contenders run on the main actor, so a test clock sees the deadline's sleep as soon as
/// the main actor has run.
@MainActor func withLoadDeadline<Value: Sendable>(
    _ limit: Duration, clock: HeraldClock, _ operation: @escaping @MainActor @Sendable () async throws -> Value
) async throws -> Value {
    let race = DeadlineRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, limit: limit, clock: clock, operation: operation)
        }
    } onCancel: {
        Task { @MainActor in race.finish(.failure(CancellationError())) }
    }
}

/// The operation against the clock; the first to finish answers, the other is cancelled.
@MainActor private final class DeadlineRace<Value: Sendable> {
    private var continuation: CheckedContinuation<Value, any Error>?
    private var work: Task<Void, Never>?
    private var timer: Task<Void, Never>?

    func start(
        _ continuation: CheckedContinuation<Value, any Error>, limit: Duration, clock: HeraldClock,
        operation: @escaping @MainActor @Sendable () async throws -> Value
    ) {
        self.continuation = continuation
        work = Task {
            do {
                finish(.success(try await operation()))
            } catch {
                finish(.failure(error))
            }
        }
        timer = Task {
            guard (try? await clock.sleep(limit)) != nil else { return }
            finish(.failure(HeraldAPIError.timeout("No answer within \(limit).")))
        }
    }

    func finish(_ result: Result<Value, any Error>) {
        guard let continuation else { return }
        self.continuation = nil
        work?.cancel()
        timer?.cancel()
        continuation.resume(with: result)
    }
}
