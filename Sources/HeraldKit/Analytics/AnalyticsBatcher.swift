import HeraldModel

/// Collects analytics events and sends them to Herald in batches: a full batch at once, the
/// rest after a short wait.
///
/// One event the server cannot take must not hold back the others, so what happens depends on
/// why a send failed:
/// - An event the server's validation would refuse (a name outside `[a-z0-9_.]` or longer than
///   ``Limits/eventNameMaxLength``, properties over ``Limits/eventPropertiesMaxBytes``) is
///   dropped when it is logged.
/// - A batch the server refuses (``HeraldAPIError/Kind/rejected`` or
///   ``HeraldAPIError/Kind/notFound``) is dropped, and the next batch goes on.
/// - Without a session (``HeraldAPIError/Kind/unauthenticated``: a guest, or a session that
///   ended) the batch is kept, but nothing retries it until another event is logged; that
///   event's flush sends everything kept. A signed-in app soon logs again; a guest costs no
///   request every few seconds.
/// - Any other failure (offline, timeout, a 5xx, 408 or 429) keeps the batch, and while sending
///   fails only the timer retries.
///
/// Past ``maxPending`` kept events the oldest are dropped.
@MainActor final class AnalyticsBatcher {
    /// How long an event waits for companions, and how long after a failure the next try waits.
    static let flushInterval: Duration = .seconds(5)
    /// The most events kept while sending fails.
    static let maxPending = 1000
    /// The most events in one `POST /v1/me/events`.
    static let batchSize = Limits.eventsPerBatch

    /// How the last send went, which decides when the next one happens.
    private enum SendState {
        /// It went (or was refused for good): a full batch goes at once.
        case ok
        /// It failed for a passing reason: the timer retries.
        case failing
        /// There was no session: the next logged event retries.
        case signedOut
    }

    private let api: HeraldAPI
    private let clock: HeraldClock
    private var pending: [AnalyticsEvent] = []
    private var scheduledFlush: Task<Void, Never>?
    private var isScheduledFlushImmediate = false
    private var isSending = false
    private var sendState = SendState.ok

    nonisolated init(api: HeraldAPI, clock: HeraldClock) {
        self.api = api
        self.clock = clock
    }

    func log(_ name: String, _ properties: [String: JSONValue]) {
        let event = AnalyticsEvent(name: name, at: clock.now(), properties: properties.isEmpty ? nil : properties)
        guard (try? event.validate()) != nil else { return }
        pending.append(event)
        dropOverflow()
        scheduleFlush(immediately: pending.count >= Self.batchSize && sendState == .ok)
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

    /// Sends full batches back to back, then leaves a partial batch, or a failed one, to the
    /// timer (or, without a session, to the next logged event).
    private func flush() async {
        guard !isSending else { return }
        isSending = true
        while !pending.isEmpty {
            let batch = Array(pending.prefix(Self.batchSize))
            pending.removeFirst(batch.count)
            do {
                try await api.sendEvents(batch)
                sendState = .ok
            } catch let error as HeraldAPIError where Self.isRefusal(error) {
                // Sending it again would meet the same answer.
                sendState = .ok
            } catch {
                pending.insert(contentsOf: batch, at: 0)
                dropOverflow()
                sendState = (error as? HeraldAPIError)?.kind == .unauthenticated ? .signedOut : .failing
                break
            }
            if pending.count < Self.batchSize { break }
        }
        isSending = false
        if !pending.isEmpty && sendState != .signedOut { scheduleFlush(immediately: false) }
    }

    /// Whether the server refused the batch itself, for good: a 4xx other than 401, 408 and 429.
    private static func isRefusal(_ error: HeraldAPIError) -> Bool {
        switch error.kind {
        case .notFound: true
        case .rejected: error.status != 408 && error.status != 429
        default: false
        }
    }

    private func dropOverflow() {
        if pending.count > Self.maxPending { pending.removeFirst(pending.count - Self.maxPending) }
    }
}
