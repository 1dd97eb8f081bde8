import HeraldHTTP2
import Synchronization

/// One event-loop thread of the server: its epoll set, and its door for other threads: jobs
/// queued here run on the thread, with the loop's confined state (``LoopRunner``).
final class ServerLoop: Sendable {
    typealias Job = @Sendable (LoopRunner) -> Void

    let index: Int
    let events: EventLoop
    private struct Queue {
        var jobs: [Job] = []
        /// Set when the thread ended: nothing queued after that runs.
        var closed = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Mutex(Queue())

    init(index: Int) throws(HTTP2ServerError) {
        self.index = index
        events = try EventLoop(throwing: HTTP2ServerError.self)
    }

    /// Queues `job` for the loop thread; false (and the job dropped) once the loop has ended.
    @discardableResult
    func execute(_ job: @escaping Job) -> Bool {
        queue.withLock { queue in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            events.wake()
            return true
        }
    }

    /// The jobs queued so far, emptied.
    func takeJobs() -> [Job] {
        events.drainWake()
        return queue.withLock { queue in
            defer { queue.jobs.removeAll() }
            return queue.jobs
        }
    }

    /// Called by the thread as its last act: later jobs are refused, ``waitForExit()`` returns.
    func finish() {
        let waiters = queue.withLock { queue in
            queue.closed = true
            queue.jobs.removeAll()
            defer { queue.exitWaiters.removeAll() }
            return queue.exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the thread has finished.
    func waitForExit() async {
        await withCheckedContinuation { continuation in
            let finished = queue.withLock { queue in
                if !queue.closed { queue.exitWaiters.append(continuation) }
                return queue.closed
            }
            if finished { continuation.resume() }
        }
    }
}
