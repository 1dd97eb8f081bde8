import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Analytics client sending to Herald")
@MainActor struct HeraldAnalyticsClientTests {
    struct Offline: Error {}

    /// A client sending to `backend`, timed by `clock`; `sendEvents` is the only API call installed.
    private func client(_ backend: FakeAnalyticsBackend, _ clock: TestClock) -> AnalyticsClient {
        var api = HeraldAPI.failing
        api.sendEvents = backend.sendEvents
        return .herald(api: api, clock: clock.dependency)
    }

    private func log(_ count: Int, from start: Int = 0, to analytics: AnalyticsClient) {
        for index in start..<(start + count) { analytics.log("event_\(index)") }
    }

    private func names(_ batches: [[AnalyticsEvent]]) -> [String] { batches.flatMap { $0.map(\.name) } }

    @Test func eventsWaitForTheTimerThenGoInOneBatchWithTheirTimeAndProperties() async {
        let backend = FakeAnalyticsBackend()
        let clock = TestClock()
        let analytics = client(backend, clock)

        analytics.log("notification_banner_shown")
        await clock.advance(by: .seconds(1))
        analytics.log("notification_banner_tapped", ["source": .string("home")])
        await clock.advance(by: .milliseconds(3999))
        #expect(backend.attempts.isEmpty)
        await clock.advance(by: .milliseconds(1))

        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(
            backend.accepted == [
                [
                    AnalyticsEvent(name: "notification_banner_shown", at: start),
                    AnalyticsEvent(
                        name: "notification_banner_tapped", at: start.addingTimeInterval(1),
                        properties: ["source": .string("home")]),
                ]
            ])
        await clock.advance(by: .seconds(60))
        #expect(backend.attempts.count == 1)
    }

    @Test func aFullBatchOf100GoesAtOnceAndTheRestWaitsForTheTimer() async {
        let backend = FakeAnalyticsBackend()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(99, to: analytics)
        await clock.settle()
        #expect(backend.attempts.isEmpty)
        log(1, from: 99, to: analytics)
        await clock.settle()
        #expect(backend.accepted.map(\.count) == [100])

        log(1, from: 100, to: analytics)
        await clock.advance(by: .milliseconds(4999))
        #expect(backend.accepted.count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(backend.accepted.map(\.count) == [100, 1])
        #expect(names(backend.accepted) == (0..<101).map { "event_\($0)" })
    }

    @Test func neverMoreThan100EventsPerRequest() async {
        let backend = FakeAnalyticsBackend()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(250, to: analytics)
        await clock.settle()
        #expect(backend.accepted.map(\.count) == [100, 100])
        await clock.advance(by: .seconds(5))
        #expect(backend.accepted.map(\.count) == [100, 100, 50])
        #expect(names(backend.accepted) == (0..<250).map { "event_\($0)" })
    }

    @Test func aFailedBatchIsKeptAndSentOnTheNextFlushInOrder() async {
        let backend = FakeAnalyticsBackend()
        backend.error = Offline()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(3, to: analytics)
        await clock.advance(by: .seconds(5))
        #expect(backend.attempts.count == 1)
        #expect(backend.accepted.isEmpty)

        backend.error = nil
        log(1, from: 3, to: analytics)
        await clock.advance(by: .milliseconds(4999))
        #expect(backend.attempts.count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(names(backend.accepted) == ["event_0", "event_1", "event_2", "event_3"])
    }

    @Test func whileSendingFailsFullBatchesWaitForTheTimerInsteadOfRetryingAtOnce() async {
        let backend = FakeAnalyticsBackend()
        backend.error = Offline()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(100, to: analytics)
        await clock.settle()
        #expect(backend.attempts.count == 1)
        log(150, from: 100, to: analytics)
        await clock.settle()
        #expect(backend.attempts.count == 1)

        await clock.advance(by: .seconds(5))
        #expect(backend.attempts.count == 2)
        backend.error = nil
        await clock.advance(by: .seconds(5))
        #expect(backend.accepted.map(\.count) == [100, 100])
        await clock.advance(by: .seconds(5))
        #expect(backend.accepted.map(\.count) == [100, 100, 50])
        #expect(names(backend.accepted) == (0..<250).map { "event_\($0)" })
    }

    @Test func whileOfflineAtMost1000EventsAreKeptDroppingTheOldest() async {
        let backend = FakeAnalyticsBackend()
        backend.error = Offline()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(1100, to: analytics)
        await clock.advance(by: .seconds(5))
        log(5, from: 1100, to: analytics)
        backend.error = nil
        await clock.advance(by: .seconds(5))

        #expect(backend.accepted.map(\.count) == Array(repeating: 100, count: 10))
        #expect(names(backend.accepted) == (105..<1105).map { "event_\($0)" })
    }
}
