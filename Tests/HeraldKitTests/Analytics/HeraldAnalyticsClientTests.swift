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

    @Test func anEventTheServerWouldRefuseIsDroppedWhenLoggedAndTheOthersAreSent() async {
        let backend = FakeAnalyticsBackend()
        let clock = TestClock()
        let analytics = client(backend, clock)

        analytics.log("notification_banner_shown")
        analytics.log("Banner Shown")
        analytics.log("")
        analytics.log(String(repeating: "a", count: Limits.eventNameMaxLength + 1))
        analytics.log("too_big", ["blob": .string(String(repeating: "x", count: Limits.eventPropertiesMaxBytes))])
        analytics.log(String(repeating: "a", count: Limits.eventNameMaxLength), ["small": .string("ok")])
        await clock.advance(by: .seconds(5))

        #expect(
            names(backend.accepted) == [
                "notification_banner_shown", String(repeating: "a", count: Limits.eventNameMaxLength),
            ])
        #expect(backend.attempts.count == 1)
    }

    @Test(arguments: [
        HeraldAPIError(kind: .rejected, status: 400, code: "invalid_input", message: "No."),
        HeraldAPIError(kind: .rejected, status: 413, code: "body_too_large", message: "Too big."),
        .notFound(),
    ])
    func aBatchTheServerRejectsIsDroppedAndTheNextOnesStillGo(_ refusal: HeraldAPIError) async {
        let backend = FakeAnalyticsBackend()
        backend.error = refusal
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(150, to: analytics)
        await clock.settle()
        #expect(backend.attempts.map(\.count) == [100], "the full batch went at once, and was refused")
        backend.error = nil
        await clock.advance(by: .seconds(5))
        #expect(names(backend.accepted) == (100..<150).map { "event_\($0)" }, "the rest was not held back")
        await clock.advance(by: .seconds(60))
        #expect(backend.attempts.count == 2, "the refused batch is never tried again")

        // After a refusal a full batch still goes at once.
        log(100, from: 150, to: analytics)
        await clock.settle()
        #expect(backend.accepted.map(\.count) == [50, 100])
    }

    @Test(arguments: [
        HeraldAPIError.offline(), .timeout(), .server(status: 503),
        HeraldAPIError(kind: .rejected, status: 429, code: "rate_limited", message: "Slow down."),
        HeraldAPIError(kind: .rejected, status: 408, code: "request_timeout", message: "Too slow."),
    ])
    func aBatchThatMeetsAPassingFailureIsKeptAndRetriedOnTheTimer(_ error: HeraldAPIError) async {
        let backend = FakeAnalyticsBackend()
        backend.error = error
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(3, to: analytics)
        await clock.advance(by: .seconds(5))
        await clock.advance(by: .seconds(5))
        #expect(backend.attempts.count == 2, "retried after 5 s")
        backend.error = nil
        await clock.advance(by: .seconds(5))
        #expect(names(backend.accepted) == ["event_0", "event_1", "event_2"])
    }

    @Test func whenSignedOutTheEventsAreKeptAndWaitForTheNextLoggedEventInsteadOfRetrying() async {
        let backend = FakeAnalyticsBackend()
        backend.error = HeraldAPIError.unauthenticated()
        let clock = TestClock()
        let analytics = client(backend, clock)

        log(3, to: analytics)
        await clock.advance(by: .seconds(5))
        #expect(backend.attempts.count == 1)
        await clock.advance(by: .seconds(600))
        #expect(backend.attempts.count == 1, "a guest costs no request every 5 s")

        // Signed in: the next event brings the kept ones along, after the usual wait.
        backend.error = nil
        log(1, from: 3, to: analytics)
        await clock.advance(by: .milliseconds(4999))
        #expect(backend.attempts.count == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(names(backend.accepted) == ["event_0", "event_1", "event_2", "event_3"])
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
