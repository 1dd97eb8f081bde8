import FoundationEssentials
import HeraldHTTP
import HeraldPush
import HeraldSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// `herald bench transport`: throughput of the push providers' `HTTP2Client`, COUNT small POSTs
/// with WINDOW in flight at a time to an HTTP/2 server over TLS. Without a URL the server is the
/// sandbox's ``HTTP2Server`` in this process, answering 200 before the body and after reading it
/// (scripts/bench-push-transport.sh); its threads' CPU is reported apart from the client's.
/// Prints one line per server, then each failure counted.
struct BenchTransport {
    let out: @Sendable (String) -> Void
    let count: Int
    let window: Int
    let connections: Int

    /// Against the server at `url`, trusting `caFile`.
    func run(url: String, caFile: String) async throws {
        try await measure(url: url, caFile: caFile, serverThreads: nil)
    }

    /// Against the sandbox's HTTP/2 server on loopback, answering each POST before its body,
    /// then after reading it.
    func runInProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let identity = try TLSIdentity.selfSigned(in: directory)
        let modes = [
            ("sandbox server answering before the body", HTTP2ServerFaults(answersBeforeBody: true)),
            ("sandbox server reading the body", HTTP2ServerFaults()),
        ]
        for (name, faults) in modes {
            let server = try HTTP2Server.start(
                configuration: HTTP2ServerConfiguration(tls: identity, faults: faults),
                answering: { _ in .now(HTTP2Response(status: 200)) })
            out("\(name):")
            try await measure(
                url: "https://127.0.0.1:\(server.port)/3/device/abc", caFile: identity.certificatePath,
                serverThreads: "h2-\(server.port)-")
            await server.stop()
        }
    }

    /// Sends the POSTs and prints the line; the CPU of the threads named with the prefix
    /// `serverThreads` (an in-process server's) is counted apart.
    private func measure(url: String, caFile: String, serverThreads: String?) async throws {
        let client = HTTP2Client(
            configuration: HTTP2ClientConfiguration(
                maxConnectionsPerHost: connections, caFile: caFile,
                logger: Logger(label: "herald-bench", level: .warning)))
        let body = Array(
            #"{"aps":{"alert":{"title":"Hello","body":"A small push"},"badge":1},"data":{"id":"n1"}}"#.utf8)
        let request = HTTP2Request(
            method: "POST", url: url,
            headers: [HTTP2Header("apns-push-type", "alert"), HTTP2Header("apns-topic", "app.herald")],
            body: body)
        // Warm-up: the connections are open before the clock starts.
        _ = try await client.send(request)
        let startCPU = Self.cpuSeconds()
        let startServerCPU = serverThreads.map(Self.threadCPUSeconds) ?? 0
        let start = ContinuousClock.now
        let failures = await send(request, through: client)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let serverCPU = (serverThreads.map(Self.threadCPUSeconds) ?? 0) - startServerCPU
        let clientMicroseconds = Int((Self.cpuSeconds() - startCPU - serverCPU) * 1e6 / Double(count))
        let serverPart = serverThreads.map { _ in ", server threads \(Int(serverCPU * 1e6 / Double(count))) µs" } ?? ""
        out(
            "http2 client: \(count) POSTs, \(window) in flight, \(Int(Double(count) / seconds)) req/s, "
                + "\(clientMicroseconds) µs CPU per request\(serverPart), "
                + "\(failures.values.reduce(0, +)) failed, \(client.connectionsOpened) connections opened")
        for (failure, times) in failures { out("  \(times) × \(failure)") }
        await client.shutdown()
    }

    /// Sends `count` copies of `request`, `window` at a time; answers each failure counted.
    private func send(_ request: HTTP2Request, through client: HTTP2Client) async -> [String: Int] {
        await withTaskGroup(of: String?.self) { group in
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
    }

    /// CPU seconds (user and system) this process used so far.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let total = [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }
        return total.reduce(0, +)
    }

    /// CPU seconds (user and system) the threads of this process named with `prefix` used so far,
    /// from /proc (in clock ticks).
    private static func threadCPUSeconds(named prefix: String) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return tasks.reduce(0) { total, task in
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                name.hasPrefix(prefix),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let nameEnd = stat.lastIndex(of: ")")
            else { return total }
            // After the name: state is field 3, utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
                return total
            }
            return total + (user + system) / ticks
        }
    }
}
