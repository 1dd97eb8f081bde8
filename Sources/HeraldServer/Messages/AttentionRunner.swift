import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore
import Synchronization

/// How the attention runner publishes scheduled notifications and sends digests.
public struct AttentionSettings: Sendable, Equatable {
    /// Scheduled notifications published, and digests summed up, per transaction.
    public var batchSize: Int = 500
    /// Longest sleep between looks (a scheduled publish or a digest held sooner wakes the runner;
    /// another server's work is found at the latest then). `--schedule-poll-interval`.
    public var wakeInterval: Duration = .seconds(1)

    public init() {}
}

/// Publishes scheduled notifications when their time comes, sends each user's digest summary
/// at their digest time, and marks messages complete once nothing of them is left to go out, through the store (each batch one transaction, so a crash loses nothing
/// and publishes nothing twice; several servers on one database share the work). Sleeps until the
/// earliest due time, at most `wakeInterval`; ``wake()`` ends a sleep early.
final class AttentionRunner: Sendable {
    private let store: any HeraldStore
    private let appConfig: AppConfigState
    private let deliveryWake: WakeSignal
    private let signal: WakeSignal
    private let settings: AttentionSettings
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let stopping = Atomic<Bool>(false)

    init(
        store: any HeraldStore, appConfig: AppConfigState, deliveryWake: WakeSignal, signal: WakeSignal,
        settings: AttentionSettings, logger: Logger, now: @escaping @Sendable () -> Date
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
            let moreNow = await runDue()
            if moreNow { continue }
            await signal.wait(timeout: await sleep())
        }
    }

    /// Ends the loop after the batch in progress.
    func stop() {
        stopping.store(true, ordering: .releasing)
        signal.wake()
    }

    /// One batch of each; true when a batch was full (more is due at once).
    private func runDue() async -> Bool {
        var full = false
        do {
            let run = try await store.publishDueScheduled(
                limit: settings.batchSize, rules: appConfig.rules, now: now())
            if run.wroteDeliveries { deliveryWake.wake() }
            full = full || run.published >= settings.batchSize
        } catch {
            logger.warning("publishing scheduled notifications failed", metadata: ["error": "\(error)"])
        }
        do {
            let document = appConfig.current
            let run = try await store.runDueDigests(
                limit: settings.batchSize, template: document.digestTemplate ?? .standard,
                catalog: document.catalog ?? .standard, now: now())
            if run.summaries > 0 { deliveryWake.wake() }
            full = full || run.summaries >= settings.batchSize
        } catch {
            logger.warning("sending digests failed", metadata: ["error": "\(error)"])
        }
        do {
            let completed = try await store.completeFinishedMessages(limit: settings.batchSize, now: now())
            full = full || completed.count >= settings.batchSize
        } catch {
            logger.warning("completing messages failed", metadata: ["error": "\(error)"])
        }
        return full
    }

    /// Until the earliest scheduled notification or digest, at most `wakeInterval`.
    private func sleep() async -> Duration {
        let scheduled = try? await store.nextScheduledDue()
        let digest = try? await store.nextDigestDue()
        guard let next = [scheduled ?? nil, digest ?? nil].compactMap({ $0 }).min() else {
            return settings.wakeInterval
        }
        let seconds = max(0, next.timeIntervalSince(now()))
        return min(settings.wakeInterval, .milliseconds(Int64(seconds * 1000)))
    }
}

extension AttentionRunner: Service {
    var name: String { "attention runner" }
    var shutdown: ServiceShutdown { .graceful { [self] in stop() } }
}
