import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldPush
import HeraldStore
import Synchronization

/// POSTs recorded webhook events to their subscriptions: claims the due head of each
/// subscription (never an event behind one not yet delivered or failed, so each subscription
/// receives its events one at a time, in order), signs and sends it with ``WebhookClient``, and
/// records the attempt: 2xx delivers it; anything else (another status, a timeout, a refused
/// connection or address) is tried again after a full-jitter backoff (``RetryPolicy``) until the
/// attempt limit or the maximum age, then fails it, and the subscription's next event goes.
///
/// Up to `concurrency` attempts are in flight, each as soon as a slot is free; a finished attempt
/// wakes the loop, so a subscription's next event goes out at once. It looks for due events at
/// least every `wakeInterval` (or at the earliest retry it scheduled, when sooner). Claims hold a
/// lease (the attempt timeout and a minute): a server that died mid-attempt leaves its event due
/// again, and two servers never attempt one event at once. ``stop()`` stops claiming and lets the
/// attempts in flight finish and be recorded.
final class WebhookWorker: Sendable {
    /// Sent as `User-Agent`.
    static let userAgent = "Herald-Webhooks/1"

    private let store: any HeraldStore
    private let client: WebhookClient
    private let settings: WebhookSettings
    private let policy: RetryPolicy
    private let signal = WakeSignal()
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let stopping = Atomic<Bool>(false)
    private let inFlight = Atomic<Int>(0)
    /// The earliest retry this worker scheduled and has not yet looked for.
    private let nextRetry = EarliestRetry()

    init(
        store: any HeraldStore, client: WebhookClient, settings: WebhookSettings, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.client = client
        self.settings = settings
        self.policy = RetryPolicy(base: settings.retryBase, cap: settings.retryCap, maxAttempts: settings.maxAttempts)
        self.logger = logger
        self.now = now
    }

    /// Runs until ``stop()``, then returns once the attempts in flight are recorded.
    func run() async {
        await withDiscardingTaskGroup { group in
            while !stopping.load(ordering: .acquiring) {
                let free = settings.concurrency - inFlight.load(ordering: .acquiring)
                let claimed = free > 0 ? await claim(limit: free) : []
                for delivery in claimed {
                    inFlight.add(1, ordering: .acquiringAndReleasing)
                    group.addTask {
                        await self.attempt(delivery)
                        self.inFlight.subtract(1, ordering: .acquiringAndReleasing)
                        self.signal.wake()
                    }
                }
                // A full claim means more may be due: look again at once.
                if claimed.isEmpty || claimed.count < free {
                    await signal.wait(timeout: nextRetry.sleepTime(atMost: settings.wakeInterval, now: now()))
                }
            }
        }
    }

    /// Stops claiming and wakes the loop; ``run()`` returns once the attempts in flight are recorded.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.wake()
    }

    private func claim(limit: Int) async -> [ClaimedWebhookDelivery] {
        do {
            return try await store.claimDueWebhookDeliveries(limit: limit, now: now(), lease: settings.lease)
        } catch {
            logger.warning("claiming webhook deliveries failed", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// One attempt of `delivery`, recorded with its outcome.
    private func attempt(_ delivery: ClaimedWebhookDelivery) async {
        let startedAt = now()
        let started = ContinuousClock.now
        // A backlog behind a receiver that was down goes quickly: what is past its age fails unsent.
        let outcome: WebhookClient.Outcome
        if startedAt.timeIntervalSince(delivery.createdAt) >= settings.maxAge {
            outcome = .failed("not sent: the event is older than --webhook-max-age")
        } else {
            outcome = await post(delivery, at: startedAt)
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(
            elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        var record = WebhookAttempt(
            attempt: delivery.attempt, at: startedAt, durationMilliseconds: milliseconds, httpStatus: nil, error: nil)
        let delivered: Bool
        switch outcome {
        case .answered(let status):
            record.httpStatus = status
            delivered = (200..<300).contains(status)
            if !delivered { record.error = "the receiver answered \(status)" }
        case .failed(let reason):
            record.error = String(reason.prefix(500))
            delivered = false
        }
        let decision = delivered ? .delivered : retryOrFail(delivery)
        if case .retry(let at) = decision { nextRetry.schedule(at) }
        logger.log(
            level: delivered ? .debug : .info, delivered ? "webhook delivered" : "webhook attempt failed",
            metadata: [
                "webhook": delivery.webhookID, "event": delivery.eventID, "type": delivery.type.rawValue,
                "attempt": "\(delivery.attempt)", "error": record.error ?? "",
                "next": "\(decision)",
            ])
        do {
            _ = try await store.completeWebhookDelivery(
                WebhookCompletion(id: delivery.id, claimToken: delivery.claimToken, attempt: record, outcome: decision),
                now: now())
        } catch {
            // The lease brings it back; the receiver dedupes the repeat by its event id.
            logger.warning(
                "recording a webhook attempt failed", metadata: ["event": delivery.eventID, "error": "\(error)"])
        }
    }

    /// POSTs `delivery`, signed at `at`.
    private func post(_ delivery: ClaimedWebhookDelivery, at: Date) async -> WebhookClient.Outcome {
        let url: WebhookURL
        do throws(WebhookURL.Invalid) {
            url = try WebhookURL(delivery.url)
        } catch {
            return .failed("the stored URL is no longer valid: \(error.message)")
        }
        let body = Array(delivery.body.utf8)
        return await client.post(
            to: url,
            headers: [
                ("User-Agent", Self.userAgent), ("Content-Type", "application/json"),
                ("Herald-Event-Id", delivery.eventID), ("Herald-Event-Type", delivery.type.rawValue),
                ("Herald-Delivery-Id", delivery.id),
                ("Herald-Signature", WebhookSignature.header(body: body, secret: delivery.secret, at: at)),
            ], body: body)
    }

    /// A failed attempt's next step: another after the backoff, or none once the attempt limit is
    /// reached or the next attempt would come after the event's maximum age.
    private func retryOrFail(_ delivery: ClaimedWebhookDelivery) -> WebhookCompletion.Outcome {
        var random = SystemRandomNumberGenerator()
        let at = now().addingTimeInterval(policy.backoff(attempt: delivery.attempt, using: &random))
        guard delivery.attempt < settings.maxAttempts,
            at.timeIntervalSince(delivery.createdAt) < settings.maxAge
        else { return .failed }
        return .retry(at: at)
    }
}

/// `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
/// UTF-8 bytes of the subscription's secret; and the secrets themselves.
enum WebhookSignature {
    static func header(body: [UInt8], secret: String, at: Date) -> String {
        let seconds = Int64(at.timeIntervalSince1970.rounded(.down))
        let mac = HMAC.sha256(key: Array(secret.utf8), message: Array("\(seconds).".utf8) + body)
        return "t=\(seconds),v1=\(Hex.encode(mac))"
    }

    /// `whsec_` and 32 random bytes in base64url.
    static func newSecret() -> String {
        "whsec_" + Base64URL.encode(SecureRandom.bytes(count: 32))
    }
}
