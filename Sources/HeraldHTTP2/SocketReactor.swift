import CNGHTTP2
import HeraldThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread that waits (epoll, through an ``EventLoop``) for sockets driven by async code to
/// become readable or writable, and resumes the tasks waiting on them: the webhook client's
/// connections and the loopback test client's. Thousands of open sockets cost no threads, and the
/// cooperative pool never blocks.
package final class SocketReactor: Sendable {
    /// The process's one reactor, started on first use.
    package static let shared = SocketReactor()

    /// Why a wait ended without the socket becoming ready.
    package enum WaitError: Error, Sendable, Equatable {
        /// The deadline passed first.
        case timedOut
        /// The socket was forgotten (closed) while a task waited on it.
        case closed
        /// `epoll_ctl` refused the socket, with this `errno`.
        case system(Int32)
    }

    private struct Waiter {
        let continuation: CheckedContinuation<Void, any Error>
        let deadline: ContinuousClock.Instant
    }

    /// The reactor cannot exist without its epoll set: a process out of descriptors at start-up.
    private struct SetupFailure: NativeCallError {
        let failure: NativeFailure
        init(_ failure: NativeFailure) { self.failure = failure }
    }

    private let events: EventLoop
    private let waiters = Mutex<[Int32: Waiter]>([:])

    private init() {
        do {
            events = try EventLoop(throwing: SetupFailure.self)
        } catch {
            preconditionFailure("cannot create the socket reactor's epoll set: \(error.failure.message)")
        }
        LoopThread.detach(LoopThread.start(name: "herald-reactor") { [self] in self.run() })
    }

    /// Suspends until `fd` is readable (or writable), hung up, the deadline passes
    /// (``WaitError/timedOut``) or the task is cancelled (`CancellationError`). One task waits on
    /// a socket at a time.
    package func wait(fd: Int32, writable: Bool, deadline: ContinuousClock.Instant) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiters.withLock { $0[fd] = Waiter(continuation: continuation, deadline: deadline) }
                let failure = events.arm(fd, tag: UInt64(UInt32(bitPattern: fd)) + 1, writable: writable)
                if failure != 0 {
                    waiters.withLock { $0.removeValue(forKey: fd) }?.continuation.resume(
                        throwing: WaitError.system(failure))
                    return
                }
                if Task.isCancelled, let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
                    waiter.continuation.resume(throwing: CancellationError())
                    return
                }
                // The loop may be asleep with a later deadline than this one.
                events.wake()
            }
        } onCancel: {
            if let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
                waiter.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Forgets `fd` before it is closed; a task still waiting on it gets ``WaitError/closed``.
    package func forget(fd: Int32) {
        events.unwatch(fd)
        if let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
            waiter.continuation.resume(throwing: WaitError.closed)
        }
    }

    private func run() {
        var ready = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = waiters.withLock { waiters -> Int32 in
                guard let earliest = waiters.values.map(\.deadline).min() else { return -1 }
                let remaining = earliest - .now
                if remaining <= .zero { return 0 }
                let (seconds, attoseconds) = remaining.components
                return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            let count = events.wait(into: &ready, timeout: timeout)
            for index in 0..<count {
                let tag = ready[index].data.u64
                if tag == EventLoop.wakeTag {
                    events.drainWake()
                    continue
                }
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: tag - 1))
                waiters.withLock { $0.removeValue(forKey: fd) }?.continuation.resume()
            }
            let now = ContinuousClock.now
            let expired = waiters.withLock { waiters -> [Waiter] in
                let late = waiters.filter { $0.value.deadline <= now }
                for fd in late.keys { waiters[fd] = nil }
                return Array(late.values)
            }
            for waiter in expired { waiter.continuation.resume(throwing: WaitError.timedOut) }
        }
    }
}
