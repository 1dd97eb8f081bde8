import Foundation

/// How the live stream waits between connection attempts.
///
/// After a stream that was open ends (the server restarted, the network dropped, the idle
/// timeout passed), the next attempt waits the server's `retry:` (Herald sends 3 s). After
/// attempts that fail one after another, the wait doubles from there, never below
/// ``minimumBackoff`` and never above ``maximumDelay``, and is spread by jitter (half to all of
/// it) so clients of a server that comes back do not all arrive at once.
public struct ReconnectPolicy: Sendable {
    /// The wait before the server has sent `retry:`.
    public var initialRetry: Duration
    /// The least backoff base after a failed attempt, so a `retry: 0` cannot make a busy loop.
    public var minimumBackoff: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration
    /// Suspends between attempts; throws `CancellationError` when the stream is cancelled.
    /// Tests inject a clock; the default is real time.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A number from 0 to 1 that spreads waits after failures.
    public var jitter: @Sendable () -> Double

    public init(
        initialRetry: Duration = .seconds(3), minimumBackoff: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(60),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.initialRetry = initialRetry
        self.minimumBackoff = minimumBackoff
        self.maximumDelay = maximumDelay
        self.sleep = sleep
        self.jitter = jitter
    }

    /// The wait before the next attempt, given the server's `retry` and how many attempts in a
    /// row have failed (0 after a stream that was open).
    public func delay(retry: Duration, failures: Int) -> Duration {
        let cap = Self.seconds(maximumDelay)
        guard failures > 0 else { return .seconds(min(max(0, Self.seconds(retry)), cap)) }
        let base = max(Self.seconds(retry), Self.seconds(minimumBackoff))
        let grown = min(base * pow(2, Double(min(failures - 1, 32))), cap)
        let spread = 0.5 + 0.5 * min(max(jitter(), 0), 1)
        return .seconds(grown * spread)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
