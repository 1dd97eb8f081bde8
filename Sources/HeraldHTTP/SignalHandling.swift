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
    /// shut down gracefully. `ready` runs once both are registered: a start-up line printed
    /// there promises that a signal sent after it is handled.
    public static func waitForTermination(ready: @escaping @Sendable () -> Void = {}) async -> Int32 {
        await waitForSignal([SIGTERM, SIGINT], ready: ready)
    }

    /// Resolves on the first of `signals`; `ready` runs once every source is registered
    /// with the kernel (a signal sent after that is never missed).
    static func waitForSignal(_ signals: [Int32], ready: @escaping @Sendable () -> Void = {}) async -> Int32 {
        ignoreOnce(signals)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let queue = DispatchQueue(label: "herald.signals")
            let box = SignalSources()
            let resumed = Mutex(false)
            let pendingRegistrations = Mutex(signals.count)
            for signalNumber in signals {
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
                source.setRegistrationHandler {
                    let remaining = pendingRegistrations.withLock { count -> Int in
                        count -= 1
                        return count
                    }
                    if remaining == 0 { ready() }
                }
                box.sources.append(source)
            }
            for source in box.sources { source.resume() }
        }
    }

    /// Sets the default action of each signal to "ignore", once per process: libdispatch
    /// installs its own handler when a source first registers, and setting SIG_IGN again
    /// later would silently undo that.
    private static func ignoreOnce(_ signals: [Int32]) {
        ignored.withLock { ignored in
            for signalNumber in signals where !ignored.contains(signalNumber) {
                signal(signalNumber, SIG_IGN)
                ignored.insert(signalNumber)
            }
        }
    }

    private static let ignored = Mutex<Set<Int32>>([])
}

/// The sources of one wait, so the first signal can cancel them all.
private final class SignalSources: @unchecked Sendable {
    // Safe: filled before any source is resumed, afterwards only read on the serial signal queue.
    var sources: [any DispatchSourceSignal] = []
}
