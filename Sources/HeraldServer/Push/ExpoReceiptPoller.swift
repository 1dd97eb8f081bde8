import FoundationEssentials
import HeraldHTTP
import HeraldPush
import HeraldStore
import Synchronization

/// Fetches the receipts of Expo tickets once they are due (``ExpoSettings/receiptDelay`` after
/// the send), up to 1,000 a request, and records them: `DeviceNotRegistered` prunes the device,
/// `MessageRateExceeded` queues the push again under the retry policy (Expo dropped it), another
/// error fails the delivery, ok ends the wait. A receipt not ready yet, or a request that
/// failed, is asked for again later; a ticket still without a receipt a day on is let go (Expo
/// keeps receipts for at least a day).
///
/// Started and stopped with the server beside the ``DeliveryWorker``; claims hold a lease, so
/// two pollers never fetch the same tickets.
final class ExpoReceiptPoller: Sendable {
    /// How long Expo keeps a receipt at least.
    static let receiptLifetime: TimeInterval = 24 * 3600

    private let store: any HeraldStore
    private let senders: PushSenders
    private let settings: ExpoSettings
    private let policy: RetryPolicy
    private let lease: TimeInterval
    private let metrics: PushMetrics
    private let signal = WakeSignal()
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let stopping = Atomic<Bool>(false)

    init(
        store: any HeraldStore, senders: PushSenders, settings: ExpoSettings, policy: RetryPolicy, lease: TimeInterval,
        metrics: PushMetrics, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.senders = senders
        self.settings = settings
        self.policy = policy
        self.lease = lease
        self.metrics = metrics
        self.logger = logger
        self.now = now
    }

    /// Runs until ``stop()``.
    func run() async {
        while !stopping.load(ordering: .acquiring) {
            let claimed: [ClaimedReceipt]
            do {
                claimed = try await store.claimDueReceipts(
                    limit: ExpoConfiguration.maxReceiptIDsPerRequest, now: now(), lease: lease)
            } catch {
                logger.warning("claiming Expo receipts failed", metadata: ["error": "\(error)"])
                claimed = []
            }
            // One request per app: its access token fetches its receipts.
            for batch in claimed.grouped(by: \.appID) { await check(batch) }
            if claimed.count < ExpoConfiguration.maxReceiptIDsPerRequest {
                await signal.wait(timeout: settings.receiptPollInterval)
            }
        }
    }

    /// Stops claiming and wakes the loop; ``run()`` returns once the request in flight is recorded.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.wake()
    }

    /// Fetches and records the receipts of `claimed`.
    /// Fetches and records the receipts of `claimed`, all of one app.
    private func check(_ claimed: [ClaimedReceipt]) async {
        guard let app = claimed.first?.appID else { return }
        guard let client = senders.expo(app: app) else {
            // The app's Expo credentials are gone from the configuration: nothing can fetch these.
            let outcomes = claimed.map { ReceiptOutcome($0, .failed(reason: DeliveryWorker.providerNotConfigured)) }
            _ = try? await store.recordReceipts(outcomes, now: now())
            return
        }
        let answer: ExpoClient.ReceiptsAnswer
        do {
            answer = try await client.receipts(ids: claimed.map(\.ticketID))
        } catch {
            return  // cancelled: the lease brings the tickets back
        }
        let checkedAt = now()
        if case .unavailable(let reason, _) = answer {
            logger.warning("fetching Expo receipts failed", metadata: ["reason": "\(reason)"])
        }
        var random = SystemRandomNumberGenerator()
        let outcomes = claimed.map { receipt in
            ReceiptOutcome(
                receipt,
                Self.result(
                    for: receipt, in: answer, now: checkedAt, settings: settings, policy: policy, using: &random))
        }
        do {
            _ = try await store.recordReceipts(outcomes, now: checkedAt)
        } catch {
            logger.warning("recording Expo receipts failed", metadata: ["error": "\(error)"])
            return
        }
        for outcome in outcomes {
            switch outcome.result {
            case .failed: metrics.recordDelivery(provider: "expo", outcome: "receipt_failed")
            case .pruned: metrics.recordDelivery(provider: "expo", outcome: "receipt_pruned")
            case .resend: metrics.recordDelivery(provider: "expo", outcome: "receipt_retry")
            case .delivered, .notReady: break
            }
        }
    }

    /// What to record for `receipt` after `answer`: its receipt's verdict (a retry goes through
    /// `policy`, counting the attempt the ticket answers); or, without one, ask again after a
    /// while (the receipt delay, at most five minutes) unless a day has passed.
    static func result(
        for receipt: ClaimedReceipt, in answer: ExpoClient.ReceiptsAnswer, now: Date, settings: ExpoSettings,
        policy: RetryPolicy, using random: inout some RandomNumberGenerator
    ) -> ReceiptOutcome.Result {
        if case .receipts(let verdicts) = answer, let verdict = verdicts[receipt.ticketID] {
            switch policy.decide(verdict, attempt: receipt.attempts, now: now, using: &random) {
            case .pruned(let reason): return .pruned(reason: reason)
            case .failed(let reason): return .failed(reason: reason)
            case .retry(let at, let reason): return .resend(at: at, reason: reason)
            case .sent: return .delivered
            }
        }
        if now.timeIntervalSince(receipt.sentAt) >= receiptLifetime { return .delivered }
        return .notReady(askAgainAt: now.addingTimeInterval(min(settings.receiptDelay, 300)))
    }
}
