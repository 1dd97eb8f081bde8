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
        var sendDuration = LatencyHistogram(bounds: PushMetrics.latencyBuckets)
    }

    private let state = Mutex(State())

    /// Counts one recorded outcome (`sent`, `retry`, `failed`, `pruned`) for `provider`.
    func recordDelivery(provider: String, outcome: String) {
        state.withLock { $0.deliveries[Key(provider: provider, outcome: outcome), default: 0] += 1 }
    }

    /// Adds the duration of one provider request.
    func recordSend(seconds: Double) {
        state.withLock { $0.sendDuration.record(seconds) }
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
        out += snapshot.sendDuration.exposition(name: "herald_push_send_duration_seconds")
        return out
    }
}
