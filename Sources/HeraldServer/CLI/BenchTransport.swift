import Foundation
import HeraldPush

#if canImport(Glibc)
    import Glibc
#endif

/// `herald bench transport`: throughput of the push providers' `HTTP2Client`, COUNT small POSTs
/// with WINDOW in flight at a time to an HTTP/2 server over TLS (scripts/bench-push-transport.sh
/// runs it against nghttpd). Prints one line, then each failure counted.
struct BenchTransport {
    let out: @Sendable (String) -> Void

    func run(url: String, caFile: String, count: Int, window: Int, connections: Int) async throws {
        let client = try HTTP2Client(
            configuration: HTTP2ClientConfiguration(maxConnectionsPerHost: connections, caFile: caFile))
        let body = Array(
            #"{"aps":{"alert":{"title":"Hello","body":"A small push"},"badge":1},"data":{"id":"n1"}}"#.utf8)
        let request = HTTP2Request(
            method: "POST", url: url,
            headers: [HTTP2Header("apns-push-type", "alert"), HTTP2Header("apns-topic", "app.herald")],
            body: body)
        // Warm-up: the connections are open before the clock starts.
        _ = try await client.send(request)
        let startCPU = Self.cpuSeconds()
        let start = ContinuousClock.now
        let failures = await withTaskGroup(of: String?.self) { group in
            var sent = 0
            var failed: [String: Int] = [:]
            func next() {
                sent += 1
                group.addTask {
                    do {
                        let status = try await client.send(request).status
                        return status == 200 ? nil : "status \(status)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            while sent < min(window, count) { next() }
            for await failure in group {
                if let failure { failed[failure, default: 0] += 1 }
                if sent < count { next() }
            }
            return failed
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let cpuMicroseconds = Int((Self.cpuSeconds() - startCPU) * 1e6 / Double(count))
        out(
            "http2 client: \(count) POSTs, \(window) in flight, \(Int(Double(count) / seconds)) req/s, "
                + "\(cpuMicroseconds) µs CPU per request, "
                + "\(failures.values.reduce(0, +)) failed, \(client.connectionsOpened) connections opened")
        for (failure, times) in failures { out("  \(times) × \(failure)") }
        await client.shutdown()
    }

    /// CPU seconds (user and system) this process used so far.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let total = [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }
        return total.reduce(0, +)
    }
}
