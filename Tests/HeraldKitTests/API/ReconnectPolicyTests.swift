import HeraldKit
import Testing

@Suite("Reconnect policy")
struct ReconnectPolicyTests {
    static func policy(jitter: Double) -> ReconnectPolicy {
        ReconnectPolicy(sleep: { _ in }, jitter: { jitter })
    }

    @Test("after a stream that was open, the next attempt waits exactly the server's retry")
    func serverRetry() {
        let policy = Self.policy(jitter: 0.3)
        #expect(policy.delay(retry: .seconds(3), failures: 0) == .seconds(3))
        #expect(policy.delay(retry: .milliseconds(250), failures: 0) == .milliseconds(250))
        #expect(policy.delay(retry: .seconds(600), failures: 0) == .seconds(60), "capped")
    }

    @Test("failed attempts double the wait from the retry, capped at 60 s")
    func backoff() {
        let full = Self.policy(jitter: 1)
        let waits = (1...7).map { full.delay(retry: .seconds(3), failures: $0) }
        #expect(
            waits == [.seconds(3), .seconds(6), .seconds(12), .seconds(24), .seconds(48), .seconds(60), .seconds(60)])
        #expect(full.delay(retry: .seconds(3), failures: 10_000) == .seconds(60))
    }

    @Test("jitter spreads a wait between half and all of it")
    func jitter() {
        #expect(Self.policy(jitter: 0).delay(retry: .seconds(3), failures: 2) == .seconds(3))
        #expect(Self.policy(jitter: 0.5).delay(retry: .seconds(3), failures: 2) == .milliseconds(4500))
        #expect(
            Self.policy(jitter: 7).delay(retry: .seconds(3), failures: 2) == .seconds(6),
            "out-of-range jitter is clamped")
    }

    @Test("a zero retry never makes a busy loop: failures wait at least the minimum backoff")
    func minimumBackoff() {
        let policy = Self.policy(jitter: 1)
        #expect(policy.delay(retry: .zero, failures: 0) == .zero)
        #expect(policy.delay(retry: .zero, failures: 1) == .seconds(1))
        #expect(policy.delay(retry: .zero, failures: 3) == .seconds(4))
    }
}
