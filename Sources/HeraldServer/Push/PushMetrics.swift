import Synchronization

/// Delivery outcomes by provider and a send-latency histogram, in Prometheus text.
final class PushMetrics: Sendable {
    /// Upper bounds of the send-latency buckets, in seconds.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Key: Hashable, Comparable {
        var provider: String
        var outcome: String
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.provider, lhs.outcome) < (rhs.provider, rhs.outcome) }
    }

    private struct State {
        var deliveries: [Key: UInt64] = [:]
        var buckets = [UInt64](repeating: 0, count: PushMetrics.latencyBuckets.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private let state = Mutex(State())

    /// Counts one recorded outcome (`sent`, `retry`, `failed`, `pruned`) for `provider`.
    func recordDelivery(provider: String, outcome: String) {
        state.withLock { $0.deliveries[Key(provider: provider, outcome: outcome), default: 0] += 1 }
    }

    /// Adds the duration of one provider request.
    func recordSend(seconds: Double) {
        let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 }
        state.withLock { state in
            if let bucket { state.buckets[bucket] += 1 }
            state.count += 1
            state.sum += seconds
        }
    }

    /// The push metrics in the Prometheus text exposition (version 0.0.4).
    func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP herald_push_deliveries_total Recorded delivery outcomes by provider and outcome.\n"
        out += "# TYPE herald_push_deliveries_total counter\n"
        for (key, value) in snapshot.deliveries.sorted(by: { $0.key < $1.key }) {
            out += "herald_push_deliveries_total{provider=\"\(key.provider)\",outcome=\"\(key.outcome)\"} \(value)\n"
        }
        out += "# HELP herald_push_send_duration_seconds Provider request latency.\n"
        out += "# TYPE herald_push_send_duration_seconds histogram\n"
        var cumulative: UInt64 = 0
        for (index, bound) in Self.latencyBuckets.enumerated() {
            cumulative += snapshot.buckets[index]
            out += "herald_push_send_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "herald_push_send_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        out += "herald_push_send_duration_seconds_sum \(snapshot.sum)\n"
        out += "herald_push_send_duration_seconds_count \(snapshot.count)\n"
        return out
    }
}
