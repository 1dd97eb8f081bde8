import FoundationEssentials
import HeraldHTTP
import HeraldStore
import Synchronization

/// Fans broadcasts out in the background, never inside a request: claims the oldest due one,
/// writes it chunk by chunk through the store (each chunk one transaction that also moves its
/// cursor), and after each chunk wakes the delivery worker (the store's change feed tells the
/// live hub).
///
/// It wakes when a broadcast is created and at least every `wakeInterval`. ``stop()`` lets the
/// chunk in progress finish and hands the broadcast back, so the next runner resumes it from
/// its cursor at once; after a crash, the next runner takes it over once its lease runs out.
final class BroadcastRunner: Sendable {
    /// The `failureReason` of a broadcast whose chunks kept failing; each error is in the log.
    static let fanOutFailed = "fan_out_failed"

    private let store: any HeraldStore
    private let appConfig: AppConfigState
    private let deliveryWake: WakeSignal
    private let signal: WakeSignal
    private let settings: BroadcastSettings
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let stopping = Atomic<Bool>(false)

    init(
        store: any HeraldStore, appConfig: AppConfigState, deliveryWake: WakeSignal,
        signal: WakeSignal, settings: BroadcastSettings, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.appConfig = appConfig
        self.deliveryWake = deliveryWake
        self.signal = signal
        self.settings = settings
        self.logger = logger
        self.now = now
    }

    /// Runs until ``stop()``.
    func run() async {
        while !stopping.load(ordering: .acquiring) {
            if await !fanOutNext() { await signal.wait(timeout: settings.wakeInterval) }
        }
    }

    /// Stops after the chunk in progress and wakes the loop.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.wake()
    }

    /// Claims the oldest due broadcast and fans it out until it ends, another runner takes it
    /// over, or the runner stops. `false` when none was due.
    private func fanOutNext() async -> Bool {
        let claim: ClaimedBroadcast?
        do {
            claim = try await store.claimBroadcast(now: now(), lease: settings.lease)
        } catch {
            logger.warning("claiming a broadcast failed", metadata: ["error": "\(error)"])
            return false
        }
        guard let claim else { return false }
        var failures = 0
        while !stopping.load(ordering: .acquiring) {
            do {
                guard
                    let chunk = try await store.fanOutBroadcastChunk(
                        id: claim.id, claimToken: claim.claimToken, limit: settings.chunkSize,
                        rules: appConfig.rules, now: now(), lease: settings.lease)
                else { return true }  // taken over after the lease ran out
                failures = 0
                if chunk.wroteDeliveries { deliveryWake.wake() }
                if chunk.broadcast.status != .running { return true }
            } catch {
                failures += 1
                logger.warning(
                    "a broadcast chunk failed",
                    metadata: ["id": claim.id, "attempt": "\(failures)", "error": "\(error)"])
                if failures >= settings.maxChunkFailures {
                    // Publishers read the reason; the error itself (store internals) is logged.
                    await fail(claim, reason: Self.fanOutFailed)
                    return true
                }
                // Nothing of the failed chunk was written; try it again shortly.
                try? await Task.sleep(for: .milliseconds(100 << failures))
            }
        }
        await release(claim)
        return true
    }

    /// Hands the broadcast back on stop, so the next runner resumes it without waiting for the lease.
    private func release(_ claim: ClaimedBroadcast) async {
        do {
            _ = try await store.releaseBroadcast(id: claim.id, claimToken: claim.claimToken, now: now())
        } catch {
            logger.warning("releasing a broadcast failed", metadata: ["id": claim.id, "error": "\(error)"])
        }
    }

    private func fail(_ claim: ClaimedBroadcast, reason: String) async {
        do {
            _ = try await store.failBroadcast(id: claim.id, claimToken: claim.claimToken, reason: reason, now: now())
        } catch {
            logger.warning("recording a failed broadcast failed", metadata: ["id": claim.id, "error": "\(error)"])
        }
    }
}
