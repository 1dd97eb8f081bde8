import HeraldModel

/// Collects analytics events and sends them to Herald in batches: a full batch at once, the
/// rest after a short wait. A batch that fails to send is kept, and while sending fails only
/// the timer retries; past ``maxPending`` events the oldest are dropped.
@MainActor final class AnalyticsBatcher {
    /// How long an event waits for companions, and how long after a failure the next try waits.
    static let flushInterval: Duration = .seconds(5)
    /// The most events kept while sending fails.
    static let maxPending = 1000
    /// The most events in one `POST /v1/me/events`.
    static let batchSize = Limits.eventsPerBatch

    private let api: HeraldAPI
    private let clock: HeraldClock
    private var pending: [AnalyticsEvent] = []
    private var scheduledFlush: Task<Void, Never>?
    private var isScheduledFlushImmediate = false
    private var isSending = false
    private var lastSendFailed = false

    nonisolated init(api: HeraldAPI, clock: HeraldClock) {
        self.api = api
        self.clock = clock
    }

    func log(_ name: String, _ properties: [String: JSONValue]) {
        pending.append(AnalyticsEvent(name: name, at: clock.now(), properties: properties.isEmpty ? nil : properties))
        dropOverflow()
        scheduleFlush(immediately: pending.count >= Self.batchSize && !lastSendFailed)
    }

    /// Makes sure a flush is coming: now, or after ``flushInterval``. An immediate request
    /// replaces a waiting timer; anything else keeps the flush already scheduled.
    private func scheduleFlush(immediately: Bool) {
        if scheduledFlush != nil {
            guard immediately, !isScheduledFlushImmediate else { return }
            scheduledFlush?.cancel()
        }
        isScheduledFlushImmediate = immediately
        let run: @MainActor () async -> Void = { [weak self] in
            self?.scheduledFlush = nil
            await self?.flush()
        }
        scheduledFlush = immediately ? Task(operation: run) : clock.scheduled(after: Self.flushInterval, run)
    }

    /// Sends full batches back to back, then leaves a partial batch, or a failed one, to the timer.
    private func flush() async {
        guard !isSending else { return }
        isSending = true
        while !pending.isEmpty {
            let batch = Array(pending.prefix(Self.batchSize))
            pending.removeFirst(batch.count)
            do {
                try await api.sendEvents(batch)
                lastSendFailed = false
            } catch {
                pending.insert(contentsOf: batch, at: 0)
                dropOverflow()
                lastSendFailed = true
                break
            }
            if pending.count < Self.batchSize { break }
        }
        isSending = false
        if !pending.isEmpty { scheduleFlush(immediately: false) }
    }

    private func dropOverflow() {
        if pending.count > Self.maxPending { pending.removeFirst(pending.count - Self.maxPending) }
    }
}
