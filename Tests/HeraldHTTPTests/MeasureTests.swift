import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldHTTP

/// Measurements behind docs/http-notes.md; run with `HERALD_MEASURE=1 swift test --filter MeasureTests`.
/// They print numbers and assert nothing about timing.
@Suite(.serialized) struct MeasureTests {
    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
    func rssKB() -> Int {
        let status = (try? procFile("/proc/self/status")) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ")[1]) ?? 0
        }
        return 0
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["HERALD_MEASURE"] != nil), arguments: [2_000, 9_000])
    func measureIdleStreams(count: Int) async throws {
        let streams = Collector<ResponseStream>()
        try await withServer(routes: StreamingTests.streamRoutes(streams)) { server in
            let rss0 = rssKB()
            let t0 = ContinuousClock.now
            var connections: [SSEConnection] = []
            try await withThrowingTaskGroup(of: SSEConnection.self) { group in
                var started = 0
                while started < 64 {
                    group.addTask { try await server.client.openStream("/events") }
                    started += 1
                }
                while let c = try await group.next() {
                    connections.append(c)
                    if started < count {
                        group.addTask { try await server.client.openStream("/events") }
                        started += 1
                    }
                }
            }
            let openTime = ContinuousClock.now - t0
            let rss1 = rssKB()
            let cpu0 = cpuSeconds()
            try await Task.sleep(for: .seconds(1))
            let idleCPU = cpuSeconds() - cpu0
            let threads = threadCount()
            let t1 = ContinuousClock.now
            for s in streams.values { s.send(ServerSentEvent(data: "x")) }
            try await withThrowingTaskGroup(of: SSEEvent?.self) { group in
                for c in connections { group.addTask { try await c.next(timeout: .seconds(20)) } }
                for try await _ in group {}
            }
            let deliver = ContinuousClock.now - t1
            #expect(server.server.currentConnections == count)
            print(
                "MEASURE streams=\(count) open=\(openTime) rssDeltaKB=\(rss1 - rss0) perStreamKB(both sides)=\((rss1 - rss0) / count) idleCPU1s=\(idleCPU) threads=\(threads) deliverAll=\(deliver) conns=\(server.server.currentConnections)"
            )
            for c in connections { c.close() }
        }
    }
}
