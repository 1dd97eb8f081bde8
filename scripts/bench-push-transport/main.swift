// Throughput of HeraldPush's HTTP2Client: COUNT small POSTs, WINDOW in flight at a time, to
// an HTTP/2 server over TLS, through one engine. Built by scripts/bench-push-transport.sh
// together with the transport's sources; prints one line.
//
//   bench-push-transport URL CAFILE [COUNT] [WINDOW] [CONNECTIONS] [ENGINE: nghttp2 | libcurl]
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(
        Data("usage: bench-push-transport URL CAFILE [COUNT] [WINDOW] [CONNECTIONS] [nghttp2|libcurl]\n".utf8))
    exit(2)
}
let url = arguments[1]
let count = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
let window = arguments.count > 4 ? Int(arguments[4]) ?? 500 : 500
let connections = arguments.count > 5 ? Int(arguments[5]) ?? 2 : 2
let engine = arguments.count > 6 ? HTTP2Engine(rawValue: arguments[6]) ?? .nghttp2 : .nghttp2
let client = try HTTP2Client(
    configuration: HTTP2ClientConfiguration(maxConnectionsPerHost: connections, caFile: arguments[2], engine: engine))
let body = Array(#"{"aps":{"alert":{"title":"Hello","body":"A small push"},"badge":1},"data":{"id":"n1"}}"#.utf8)
let request = HTTP2Request(
    method: "POST", url: url, headers: [("apns-push-type", "alert"), ("apns-topic", "app.herald")], body: body)

// Warm-up: the connections are open before the clock starts.
_ = try await client.send(request)

/// CPU seconds (user and system) this process used so far.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let total = [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }
    return total.reduce(0, +)
}
let startCPU = cpuSeconds()
let start = ContinuousClock.now
/// Each failure's description, counted.
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
let cpuMicroseconds = Int((cpuSeconds() - startCPU) * 1e6 / Double(count))
print(
    "http2 client (\(engine)): \(count) POSTs, \(window) in flight, \(Int(Double(count) / seconds)) req/s, "
        + "\(cpuMicroseconds) µs CPU per request, "
        + "\(failures.values.reduce(0, +)) failed, \(client.connectionsOpened) connections opened")
for (failure, times) in failures { print("  \(times) × \(failure)") }
