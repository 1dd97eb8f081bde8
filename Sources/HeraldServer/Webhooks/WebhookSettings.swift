import FoundationEssentials

/// How webhooks are checked, sent and retried; every field but `isEnabled` and `wakeInterval` has a
/// flag and an environment twin (`herald serve --help`).
public struct WebhookSettings: Sendable, Equatable {
    /// Whether the webhook worker runs at all. No flag: `herald serve` always runs it; tests that
    /// read deliveries as they were recorded turn it off.
    public var isEnabled = true
    /// Lets webhooks reach loopback, private, link-local and other non-public addresses
    /// (`--webhook-allow-private-addresses`): development, tests, receivers on a private network.
    public var allowPrivateAddresses = false
    /// Subscriptions at most (`--max-webhooks`); one more is 409 `too_many_webhooks`.
    public var maxSubscriptions = 25
    /// One attempt's limit, from the lookup to the response head (`--webhook-timeout`, seconds).
    public var timeout: TimeInterval = 10
    /// The backoff ceiling of the first retry, doubling per attempt (`--webhook-retry-base`).
    public var retryBase: TimeInterval = 10
    /// The longest wait between attempts (`--webhook-retry-cap`).
    public var retryCap: TimeInterval = 3_600
    /// Attempts in all before an event's delivery fails (`--webhook-max-attempts`).
    public var maxAttempts = 20
    /// An event older than this is not tried again: its delivery fails (`--webhook-max-age`).
    public var maxAge: TimeInterval = 3 * 86_400
    /// Attempts in flight at once, one per subscription at most (`--webhook-concurrency`).
    public var concurrency = 16
    /// How long delivered and failed deliveries are kept for `GET /v1/webhooks/{id}/deliveries`
    /// (`--webhook-retention`).
    public var retention: TimeInterval = 7 * 86_400
    /// The most of a response body read (and dropped) before the connection closes
    /// (`--webhook-max-response-bytes`).
    public var maxResponseBytes = 65_536
    /// PEM certificates to trust for https receivers instead of the system's (`--webhook-ca-file`).
    public var caFile: String?
    /// Longest sleep between looks for due events (retries come due on their own).
    public var wakeInterval: Duration = .seconds(1)

    public static let maxSubscriptionsRange: ClosedRange<Int> = 1...10_000
    public static let timeoutRange: ClosedRange<Double> = 0.1...300
    public static let retryBaseRange: ClosedRange<Double> = 0.001...3_600
    public static let retryCapRange: ClosedRange<Double> = 0.001...86_400
    public static let maxAttemptsRange: ClosedRange<Int> = 1...100
    public static let maxAgeRange: ClosedRange<Double> = 1...(30 * 86_400)
    public static let concurrencyRange: ClosedRange<Int> = 1...1_000
    public static let retentionRange: ClosedRange<Double> = 60...(365 * 86_400)
    public static let maxResponseBytesRange: ClosedRange<Int> = 0...(16 << 20)

    /// How long a claimed attempt stays with its worker before another server may try it: the
    /// attempt's timeout and a minute for the lookup and the write.
    public var lease: TimeInterval { timeout + 60 }

    public init() {}
}
