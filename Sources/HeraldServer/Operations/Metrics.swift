import FoundationEssentials
import HeraldHTTP
import Synchronization

/// Request counts by route and status, and a latency histogram by route, in Prometheus text.
final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [String: LatencyHistogram] = [:]
    }

    private let state = Mutex(State())
    private let gauges: @Sendable () -> [(name: String, help: String, value: Double)]
    private let sections: @Sendable () -> String

    /// `gauges` are read at scrape time (open streams, ...); `sections` is more exposition text
    /// kept elsewhere (the push metrics), appended as it is.
    init(
        gauges: @escaping @Sendable () -> [(name: String, help: String, value: Double)] = { [] },
        sections: @escaping @Sendable () -> String = { "" }
    ) {
        self.gauges = gauges
        self.sections = sections
    }

    /// Requests answered with a 5xx that is a bug: not 503 (not ready, shutting down, timed out),
    /// and not the transport's refusals of what a client asked for (501 an unknown transfer
    /// coding, 505 an HTTP version it does not speak).
    var serverErrorCount: Int {
        state.withLock { state in
            Int(
                state.requests.filter { $0.key.status >= 500 && ![501, 503, 505].contains($0.key.status) }.values
                    .reduce(0, +))
        }
    }

    /// Methods that get a label value of their own; any other is counted as `_OTHER`, so a
    /// client cannot add series by inventing methods.
    static let labelledMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// `route` must come from a bounded set (route patterns, "unmatched"); the status is clamped
    /// to 100...599 (anything else is 0).
    func record(method: String, route: String, status: Int, seconds: Double) {
        let key = RequestKey(
            method: Self.labelledMethods.contains(method) ? method : "_OTHER", route: route,
            status: (100...599).contains(status) ? status : 0)
        state.withLock { state in
            state.requests[key, default: 0] += 1
            state.latency[route, default: LatencyHistogram(bounds: Self.latencyBuckets)].record(seconds)
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP herald_http_requests_total HTTP requests by method, route and status.\n"
        out += "# TYPE herald_http_requests_total counter\n"
        for (key, value) in snapshot.requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            out +=
                "herald_http_requests_total{method=\"\(Self.escape(key.method))\",route=\"\(Self.escape(key.route))\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP herald_http_request_duration_seconds HTTP request latency by route.\n"
        out += "# TYPE herald_http_request_duration_seconds histogram\n"
        for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            out += histogram.exposition(
                name: "herald_http_request_duration_seconds", label: "route=\"\(Self.escape(route))\"")
        }
        for gauge in gauges() {
            let value = gauge.value.rounded() == gauge.value ? String(Int(gauge.value)) : String(gauge.value)
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(value)\n"
        }
        return out + sections()
    }

    /// A label value as the text format requires: backslash, double quote and line feed escaped.
    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

/// Records every answered request in ``Metrics`` under its route pattern (not its raw path,
/// so ids do not explode the label set).
struct MetricsMiddleware: Middleware {
    let metrics: Metrics

    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        let route = context.route ?? "unmatched"
        do {
            let response = try await next(request, context)
            record(request, route: route, status: response.status, context: context)
            return response
        } catch let error as HTTPError {
            record(request, route: route, status: error.status, context: context)
            throw error
        } catch {
            record(request, route: route, status: 500, context: context)
            throw error
        }
    }

    private func record(_ request: Request, route: String, status: Int, context: RequestContext) {
        let seconds = (ContinuousClock.now - context.startTime).inSeconds
        metrics.record(method: request.method.rawValue, route: route, status: status, seconds: seconds)
    }
}
