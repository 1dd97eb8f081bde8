import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for the process to be asked to stop.
public enum SignalHandling {
    /// Resolves with the signal number on the first SIGTERM or SIGINT. Both signals are
    /// ignored by default handling from the first call on, so the process stays alive to
    /// shut down gracefully.
    public static func waitForTermination() async -> Int32 {
        await waitForSignal([SIGTERM, SIGINT])
    }

    /// Resolves on the first of `signals`; `ready` runs once the handlers are installed.
    static func waitForSignal(_ signals: [Int32], ready: @Sendable () -> Void = {}) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: "herald.signals")
            let box = SignalSources()
            let resumed = Mutex(false)
            for signalNumber in signals {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    let first = resumed.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    guard first else { return }
                    for source in box.sources { source.cancel() }
                    continuation.resume(returning: signalNumber)
                }
                box.sources.append(source)
            }
            for source in box.sources { source.resume() }
            ready()
        }
    }
}

/// The sources of one wait, so the first signal can cancel them all.
private final class SignalSources: @unchecked Sendable {
    // Safe: filled before any source is resumed, afterwards only read on the serial signal queue.
    var sources: [any DispatchSourceSignal] = []
}
