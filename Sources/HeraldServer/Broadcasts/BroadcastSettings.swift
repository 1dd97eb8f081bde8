import FoundationEssentials

/// How the broadcast runner fans broadcasts out.
public struct BroadcastSettings: Sendable, Equatable {
    /// Whether the runner runs at all. No flag: `herald serve` always runs it; tests that look
    /// at a broadcast before its fan-out turn it off.
    public var isEnabled = true
    /// Users reached per transaction. Each chunk holds the store's writer for its writes, so
    /// publishes interleave between chunks.
    public var chunkSize: Int = 500
    /// How long a claimed broadcast stays with this runner without a chunk before another
    /// runner (after a crash) may take it over; every chunk extends it.
    public var lease: TimeInterval = 60
    /// Longest sleep between looks for queued broadcasts (a new broadcast wakes the runner).
    public var wakeInterval: Duration = .seconds(1)
    /// Chunks in a row that may fail before the broadcast ends `failed`.
    public var maxChunkFailures: Int = 5

    public init() {}
}
