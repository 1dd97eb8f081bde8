import FoundationEssentials
import HeraldHTTP
import Synchronization

/// A token bucket per API key over every publisher call: a key holds up to `burst` calls and
/// regains `rate` a second. Time is the server's injected clock, so tests move it by hand. Each
/// server keeps its own buckets (several servers on one database allow a key their sum).
final class PublisherRateLimiter: Sendable {
    let rate: Double
    let burst: Double

    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    /// One bucket per key id, so bounded by the number of valid keys.
    private let buckets = Mutex<[String: Bucket]>([:])

    /// `nil` when `rate` is 0 (no limit).
    init?(rate: Double, burst: Int) {
        guard rate > 0 else { return nil }
        precondition(burst >= 1, "a bucket holds at least one call")
        self.rate = rate
        self.burst = Double(burst)
    }

    /// Takes one call from `keyID`'s bucket at `now`; throws 429 `rate_limited` with
    /// `Retry-After` (whole seconds until a call is back) when the bucket is empty.
    func take(_ keyID: String, at now: Date) throws(HTTPError) {
        let wait: Double? = buckets.withLock { buckets in
            var bucket = buckets[keyID] ?? Bucket(tokens: burst, updatedAt: now)
            // A clock that went back refills nothing.
            let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.updatedAt = max(now, bucket.updatedAt)
            defer { buckets[keyID] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
        guard let wait else { return }
        let retryAfter = max(1, Int(wait.rounded(.up)))
        throw HTTPError.tooManyRequests(
            "This API key is over its rate of \(Self.format(rate)) publisher calls a second (bursts of up to "
                + "\(Int(burst))); retry after \(retryAfter) s.",
            code: "rate_limited", retryAfterSeconds: retryAfter)
    }

    /// `100` or `0.5`.
    static func format(_ rate: Double) -> String {
        rate == rate.rounded() && rate < 1e15 ? String(Int(rate)) : String(rate)
    }
}
