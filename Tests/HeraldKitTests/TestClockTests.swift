import HeraldKit
import HeraldKitTestSupport
import Testing

@Suite("Test clock")
@MainActor struct TestClockTests {
    @Test func sleepersWakeInDeadlineOrderWhenTimeReachesThem() async {
        let clock = TestClock()
        var woke: [String] = []
        let sleep = clock.dependency.sleep
        let late = Task { @MainActor in
            try await sleep(.seconds(4))
            woke.append("4s")
        }
        let early = Task { @MainActor in
            try await sleep(.milliseconds(800))
            woke.append("800ms")
        }
        await clock.advance(by: .milliseconds(799))
        #expect(woke.isEmpty)
        await clock.advance(by: .milliseconds(1))
        #expect(woke == ["800ms"])
        await clock.advance(by: .seconds(10))
        #expect(woke == ["800ms", "4s"])
        #expect(clock.elapsed == .milliseconds(10_800))
        _ = (late, early)
    }

    @Test func aCancelledSleepThrowsAndLeavesNoSleeper() async {
        let clock = TestClock()
        let sleep = clock.dependency.sleep
        let task = Task { @MainActor in try await sleep(.seconds(1)) }
        await clock.settle()
        #expect(clock.sleeperCount == 1)
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(clock.sleeperCount == 0)
    }

    @Test func nowMovesWithTheClock() async {
        let clock = TestClock()
        let before = clock.now
        await clock.advance(by: .seconds(60))
        #expect(clock.now.timeIntervalSince(before) == 60)
    }
}
