import FoundationEssentials

/// When a failed send is tried again, and when it is given up: exponential backoff with full
/// jitter, the provider's `Retry-After` taking precedence, and an attempt limit.
///
/// Pure: the time and the randomness come from the caller.
public struct RetryPolicy: Sendable, Equatable {
    /// The backoff ceiling of the first retry; it doubles with each attempt.
    public var base: TimeInterval
    /// The largest delay, for backoff and for `Retry-After` alike.
    public var cap: TimeInterval
    /// Attempts in all, the first included; a retry verdict on the last becomes `failed`.
    public var maxAttempts: Int

    /// A policy of `base` seconds doubling up to `cap`, for at most `maxAttempts` attempts.
    public init(base: TimeInterval = 1, cap: TimeInterval = 30 * 60, maxAttempts: Int = 8) {
        precondition(base > 0 && cap >= base, "RetryPolicy needs 0 < base <= cap")
        precondition(maxAttempts >= 1, "RetryPolicy needs at least one attempt")
        self.base = base
        self.cap = cap
        self.maxAttempts = maxAttempts
    }

    /// What to record for `verdict`, the answer to attempt number `attempt` (1 for the first),
    /// received at `now`.
    public func decide(
        _ verdict: PushVerdict, attempt: Int, now: Date, using random: inout some RandomNumberGenerator
    ) -> DeliveryDecision {
        switch verdict {
        case .sent(let id, _): return .sent(providerMessageID: id)
        case .failed(let reason, _): return .failed(reason: reason)
        case .pruned(let reason, _): return .pruned(reason: reason)
        case .retry(let reason, let retryAfter, _):
            guard attempt < maxAttempts else { return .failed(reason: reason) }
            let delay =
                retryAfter.flatMap { RetryAfter.delay($0, now: now) }.map { min($0, cap) }
                ?? backoff(attempt: attempt, using: &random)
            return .retry(at: now.addingTimeInterval(delay), reason: reason)
        }
    }

    /// The backoff ceiling after attempt number `attempt`: `base · 2^(attempt-1)`, at most `cap`.
    public func ceiling(attempt: Int) -> TimeInterval {
        let exponent = max(0, attempt - 1)
        // 2^62 seconds is beyond any cap; stop doubling long before Double loses the plot.
        return exponent >= 62 ? cap : min(cap, base * Double(UInt64(1) << UInt64(exponent)))
    }

    /// A full-jitter delay after attempt number `attempt`: uniform in 0 ... ``ceiling(attempt:)``.
    public func backoff(attempt: Int, using random: inout some RandomNumberGenerator) -> TimeInterval {
        Double.random(in: 0...ceiling(attempt: attempt), using: &random)
    }
}
