import HeraldHTTP
import Synchronization
import Testing

@testable import HeraldServer

/// The one lifecycle of the long-lived jobs: started together, stopped in reverse order, each
/// finished before the next is asked; graceful ones are told to finish, not cancelled.
@Suite("service group")
struct ServiceGroupTests {
    /// Records when it starts and how it ended; graceful ones wait for `finish`, others for cancellation.
    final class Recorder: Sendable {
        let events = Mutex<[String]>([])
        func record(_ event: String) { events.withLock { $0.append(event) } }
        var values: [String] { events.withLock { $0 } }
    }

    struct Cancelled: Service {
        let name: String
        let recorder: Recorder
        func run() async {
            recorder.record("\(name) runs")
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            recorder.record("\(name) cancelled")
        }
    }

    final class Graceful: Service {
        let name: String
        let recorder: Recorder
        private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let asked = Mutex(false)
        init(name: String, recorder: Recorder) {
            self.name = name
            self.recorder = recorder
        }
        var shutdown: ServiceShutdown { .graceful(finish) }
        func finish() {
            let waiting = finished.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }
            asked.withLock { $0 = true }
            waiting?.resume()
        }
        func run() async {
            recorder.record("\(name) runs")
            await withCheckedContinuation { continuation in
                let already = asked.withLock { asked in
                    if !asked { finished.withLock { $0 = continuation } }
                    return asked
                }
                if already { continuation.resume() }
            }
            // Its work in hand is not cut short: the task is not cancelled.
            recorder.record("\(name) finished\(Task.isCancelled ? " (cancelled!)" : "")")
        }
    }

    @Test func servicesStopInReverseOrderEachFinishedBeforeTheNext() async throws {
        let recorder = Recorder()
        let group = ServiceGroup(
            [
                Cancelled(name: "heartbeats", recorder: recorder),
                Graceful(name: "worker", recorder: recorder),
                Graceful(name: "broadcasts", recorder: recorder),
            ], logger: .disabled)
        group.start()
        await group.stop()
        let ends = recorder.values.filter { !$0.hasSuffix("runs") }
        #expect(ends == ["broadcasts finished", "worker finished", "heartbeats cancelled"], "\(recorder.values)")
        #expect(recorder.values.filter { $0.hasSuffix("runs") }.count == 3)
        await group.stop()  // a second stop does nothing
        #expect(recorder.values.count == 6)
    }

    @Test func aPeriodicServiceWorksOnItsIntervalUntilCancelled() async throws {
        let (ticks, tick) = AsyncStream.makeStream(of: Void.self)
        let group = ServiceGroup(
            [PeriodicService(name: "tick", interval: .milliseconds(1), atStart: true) { tick.yield() }],
            logger: .disabled)
        group.start()
        var heard = 0
        for await _ in ticks {
            heard += 1
            if heard == 3 { break }
        }
        await group.stop()  // returns only once the loop has seen its cancellation
        #expect(heard == 3)
    }

    @Test func theApplicationRunsItsJobsInOneGroup() async throws {
        try await withServer { configuration in
            configuration.pushWorker.isEnabled = true
            configuration.broadcasts.isEnabled = true
        } _: { server in
            #expect(server.app.jobs.names.starts(with: ["stream heartbeats", "stream expiry", "pruning"]))
            #expect(server.app.jobs.names.contains("delivery worker"))
            #expect(
                server.app.jobs.names.suffix(3) == ["broadcast runner", "attention runner", "webhook worker"])
        }
    }
}
