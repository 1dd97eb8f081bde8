/// One Prometheus histogram: counts under fixed upper bounds, a total count and a sum.
struct LatencyHistogram: Sendable {
    /// Upper bounds of the buckets, in seconds, ascending.
    let bounds: [Double]
    private var buckets: [UInt64]
    private var count: UInt64 = 0
    private var sum: Double = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        buckets = [UInt64](repeating: 0, count: bounds.count)
    }

    /// Adds one observation.
    mutating func record(_ seconds: Double) {
        if let bucket = bounds.firstIndex(where: { seconds <= $0 }) { buckets[bucket] += 1 }
        count += 1
        sum += seconds
    }

    /// The `_bucket` (cumulative), `_sum` and `_count` lines of `name`. `label` is a label pair
    /// such as `route="/x"` put before `le`, or `nil` for none.
    func exposition(name: String, label: String? = nil) -> String {
        let prefix = label.map { $0 + "," } ?? ""
        let suffix = label.map { "{\($0)}" } ?? ""
        var out = ""
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += buckets[index]
            out += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(count)\n"
        out += "\(name)_sum\(suffix) \(sum)\n"
        out += "\(name)_count\(suffix) \(count)\n"
        return out
    }
}
