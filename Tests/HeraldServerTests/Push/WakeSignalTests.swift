import Synchronization
import Testing

@testable import HeraldServer

/// The delivery worker's sleep: ended by a wake, its timeout or cancellation, and never by the
/// timer of an earlier wait (which made an idle worker claim in a tight loop after one publish).
@Suite("Delivery worker wake signal")
struct WakeSignalTests {
    @Test("a wait ended early by a wake leaves the next wait alone: it lasts until the next wake")
    func earlyWakeDoesNotEndTheNextWait() async throws {
        let signal = WakeSignal()
        let first = Task { await signal.wait(timeout: .seconds(60)) }
        signal.wake()
        await first.value
        let ended = Flag()
        let second = Task {
            await signal.wait(timeout: .seconds(60))
            ended.set()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!ended.isSet, "the first wait's cancelled timer ended the second wait")
        signal.wake()
        await second.value
        #expect(ended.isSet)
    }

    @Test("the timeout ends a wait, and a wake sent while nobody waits ends the next one at once")
    func timeoutAndPendingWake() async {
        let signal = WakeSignal()
        await signal.wait(timeout: .milliseconds(20))
        await signal.wait(timeout: .zero)
        signal.wake()
        await signal.wait(timeout: .seconds(60))
    }

    @Test("cancelling the waiting task ends its wait and leaves no wake behind")
    func cancellationEndsTheWait() async throws {
        let signal = WakeSignal()
        let waiting = Task { await signal.wait(timeout: .seconds(60)) }
        waiting.cancel()
        await waiting.value
        let ended = Flag()
        let next = Task {
            await signal.wait(timeout: .seconds(60))
            ended.set()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!ended.isSet, "the cancelled wait left a wake for the next one")
        next.cancel()
        await next.value
    }
}

/// Set once, read from any task.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
