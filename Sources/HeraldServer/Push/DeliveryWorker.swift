import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldPush
import HeraldServerModel
import HeraldStore
import Synchronization

/// Sends due outbox rows: claims them in batches, sends each with bounded concurrency, and
/// records what came of it through the ``RetryPolicy``, many outcomes per store write.
///
/// It wakes when a publish wrote delivery rows and at least every `wakeInterval` (or at the
/// earliest retry it scheduled, when sooner). ``stop()`` stops claiming and lets the sends in
/// flight finish; a row it could not finish stays claimed until its lease runs out.
final class DeliveryWorker: Sendable {
    /// The reason on rows whose provider has no client configured (APNs or FCM without settings).
    static let providerNotConfigured = "provider_not_configured"

    private let store: any HeraldStore
    private let senders: PushSenders
    private let settings: PushWorkerSettings
    private let policy: RetryPolicy
    private let metrics: PushMetrics
    private let signal: WakeSignal
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let stopping = Atomic<Bool>(false)
    /// The earliest retry this worker scheduled and has not yet looked for.
    private let nextRetry = EarliestRetry()
    private let recorder: CompletionRecorder

    init(
        store: any HeraldStore, senders: PushSenders, settings: PushWorkerSettings, metrics: PushMetrics,
        signal: WakeSignal, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.senders = senders
        self.settings = settings
        self.policy = RetryPolicy(base: settings.retryBase, cap: settings.retryCap, maxAttempts: settings.maxAttempts)
        self.metrics = metrics
        self.signal = signal
        self.logger = logger
        self.now = now
        self.recorder = CompletionRecorder(store: store, metrics: metrics, logger: logger, now: now)
    }

    /// Runs until ``stop()``.
    ///
    /// While one full batch is sent the next is claimed, so the outbox never waits on the
    /// store; outcomes are written by ``CompletionRecorder`` in batches.
    func run() async {
        let recording = Task { await recorder.run() }
        var next: Task<[ClaimedDelivery], Never>? = Task { await claim() }
        while let claiming = next {
            let claimed = await claiming.value
            let full = claimed.count >= settings.batchSize
            // A full batch means more are due: claim them while this one is sent.
            next = full && !stopping.load(ordering: .acquiring) ? Task { await claim() } : nil
            await send(claimed)
            if next == nil && !stopping.load(ordering: .acquiring) {
                if !full { await signal.wait(timeout: nextRetry.sleepTime(atMost: settings.wakeInterval, now: now())) }
                if !stopping.load(ordering: .acquiring) { next = Task { await claim() } }
            }
        }
        recorder.finish()
        await recording.value
    }

    /// The next due batch, or none when the store fails.
    private func claim() async -> [ClaimedDelivery] {
        do {
            return try await store.claimDueDeliveries(limit: settings.batchSize, now: now(), lease: settings.lease)
        } catch {
            logger.warning("claiming deliveries failed", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Stops claiming and wakes the loop; ``run()`` returns once the sends in flight are recorded.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.wake()
    }

    /// Sends `claimed`, at most `concurrency` at once; Expo rows go together, up to 100 a request.
    ///
    /// Each of `concurrency` lanes takes the next row as soon as its last one is done: one task
    /// per lane rather than one per row, so a send costs no task of its own.
    private func send(_ claimed: [ClaimedDelivery]) async {
        let rows = RowQueue(nonExpoOf: claimed)
        let expoBatches = Self.expoBatches(claimed.filter { $0.provider == .expo })
        await withTaskGroup(of: Void.self) { group in
            for batch in expoBatches { group.addTask { await self.deliverExpo(batch) } }
            for _ in 0..<min(settings.concurrency, rows.count) {
                group.addTask {
                    while let row = rows.next() { await self.deliver(row) }
                }
            }
        }
    }

    /// Sends one row and records its outcome: a notification's push through its provider's client
    /// for the device's app, or a Live Activity push to its ActivityKit token through that app's
    /// APNs client (a dead token, 410 or `BadDeviceToken`, is then pruned in the token table).
    private func deliver(_ row: ClaimedDelivery) async {
        guard let client = senders.client(app: row.appID, provider: row.provider, environment: row.environment),
            row.liveActivity == nil || client is APNsClient
        else {
            await complete(row, .failed(reason: Self.providerNotConfigured), label: "failed")
            return
        }
        let started = ContinuousClock.now
        let verdict: PushVerdict
        do {
            if let liveActivity = row.liveActivity, let apns = client as? APNsClient {
                verdict = try await apns.send(
                    deviceToken: row.deviceToken, deliveryID: row.id,
                    liveActivity: LiveActivityPayload(content: liveActivity), expiresAt: row.expiresAt)
            } else {
                verdict = try await client.send(
                    deviceToken: row.deviceToken, deliveryID: row.id,
                    payload: PushPayload(notification: row.notification, badge: row.badge, options: row.push),
                    expiresAt: row.expiresAt, now: now())
            }
        } catch {
            return  // cancelled: the lease brings the row back
        }
        metrics.recordSend(seconds: (ContinuousClock.now - started).inSeconds)
        await record(row, verdict)
    }

    /// `rows` in requests of one app each (its access token), at most
    /// ``ExpoConfiguration/maxMessagesPerRequest`` a request.
    static func expoBatches(_ rows: [ClaimedDelivery]) -> [[ClaimedDelivery]] {
        rows.grouped(by: \.appID).flatMap { rows in
            stride(from: 0, to: rows.count, by: ExpoConfiguration.maxMessagesPerRequest).map { start in
                Array(rows[start..<min(start + ExpoConfiguration.maxMessagesPerRequest, rows.count)])
            }
        }
    }

    /// Sends Expo `rows` (at most 100, of one app) in one request and records each row's ticket.
    private func deliverExpo(_ rows: [ClaimedDelivery]) async {
        guard let app = rows.first?.appID, let client = senders.expo(app: app) else {
            for row in rows { await complete(row, .failed(reason: Self.providerNotConfigured), label: "failed") }
            return
        }
        let sendTime = now()
        let messages = rows.map { row in
            PushPayload(notification: row.notification, badge: row.badge, options: row.push)
                .expo(to: row.deviceToken).remainingTTL(expiresAt: row.expiresAt, now: sendTime)
        }
        let started = ContinuousClock.now
        let verdicts: [PushVerdict]
        do {
            verdicts = try await client.send(messages)
        } catch {
            return  // cancelled: the lease brings the rows back
        }
        metrics.recordSend(seconds: (ContinuousClock.now - started).inSeconds)
        for (row, verdict) in zip(rows, verdicts) { await record(row, verdict) }
    }

    /// Records `verdict` on `row` through the retry policy; an Expo ticket waits for its receipt.
    private func record(_ row: ClaimedDelivery, _ verdict: PushVerdict) async {
        var random = SystemRandomNumberGenerator()
        let status = verdict.status
        switch policy.decide(verdict, attempt: row.attempts, now: now(), using: &random) {
        case .sent(let id?) where row.provider == .expo:
            let due = now().addingTimeInterval(senders.expoReceiptDelay)
            await complete(row, .ticketed(ticketID: id, receiptDueAt: due), label: "sent", status: status)
        case .sent(let id): await complete(row, .sent(providerMessageID: id), label: "sent", status: status)
        case .failed(let reason): await complete(row, .failed(reason: reason), label: "failed", status: status)
        case .pruned(let reason): await complete(row, .pruned(reason: reason), label: "pruned", status: status)
        case .retry(let at, let reason):
            nextRetry.schedule(at)
            logger.debug(
                "delivery will be sent again",
                metadata: [
                    "id": row.id, "provider": row.provider.rawValue, "attempt": "\(row.attempts)", "reason": reason,
                ])
            await complete(row, .retry(at: at, reason: reason), label: "retry", status: status)
        }
    }

    /// Hands the outcome of `row`, and the provider's HTTP status when an answer came, to the
    /// recorder; it is written with the others that arrive meanwhile, in one transaction.
    private func complete(_ row: ClaimedDelivery, _ outcome: DeliveryOutcome, label: String, status: Int? = nil) async {
        recorder.add(
            DeliveryCompletion(id: row.id, claimToken: row.claimToken, outcome: outcome, providerStatus: status),
            provider: row.provider.rawValue, label: label)
    }
}

/// The rows of one claim that are not Expo's, handed out once each to the delivery worker's
/// lanes, in order.
///
/// It keeps the claim's array and the positions of those rows in it rather than a filtered
/// copy: a row is about 700 bytes holding some twenty references, and copying a batch of them
/// retains each reference (and dropping the copy releases it).
private final class RowQueue: Sendable {
    private let rows: [ClaimedDelivery]
    private let positions: [Int]
    private let taken = Atomic<Int>(0)

    init(nonExpoOf rows: [ClaimedDelivery]) {
        self.rows = rows
        positions = rows.indices.filter { rows[$0].provider != .expo }
    }

    var count: Int { positions.count }

    /// The next row no lane has taken, or nil when all have been.
    func next() -> ClaimedDelivery? {
        let index = taken.add(1, ordering: .relaxed).oldValue
        return index < positions.count ? rows[positions[index]] : nil
    }
}
