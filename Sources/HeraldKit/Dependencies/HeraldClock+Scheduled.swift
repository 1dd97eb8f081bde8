extension HeraldClock {
    /// Starts a task that runs `work` once `delay` has passed on this clock, unless the task is
    /// cancelled first (also when the cancel lands just as the sleep ends).
    @MainActor func scheduled(
        after delay: Duration, _ work: @escaping @MainActor () async -> Void
    ) -> Task<Void, Never> {
        Task {
            do {
                try await sleep(delay)
                try Task.checkCancellation()
            } catch {
                return
            }
            await work()
        }
    }
}
