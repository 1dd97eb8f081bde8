import CNGHTTP2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One event-loop thread's door for other threads: jobs queued here run on the thread, with the
/// loop's confined state (``LoopRunner``).
final class EventLoop: Sendable {
    typealias Job = @Sendable (LoopRunner) -> Void

    let index: Int
    let epollFD: Int32
    let wakeFD: Int32
    private struct Queue {
        var jobs: [Job] = []
        /// Set when the thread closed its descriptors: nothing queued after that runs.
        var closed = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Mutex(Queue())

    init(index: Int) throws(HTTP2ServerError) {
        self.index = index
        epollFD = try LibraryCall.system(epoll_create1(Int32(EPOLL_CLOEXEC)), "epoll_create1")
        do {
            wakeFD = try LibraryCall.system(eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)), "eventfd")
        } catch {
            close(epollFD)
            throw error
        }
        watch(wakeFD, as: LoopEvent.wake, writable: false, operation: EPOLL_CTL_ADD)
    }

    /// Closes the descriptors if the thread never ran (a server that failed to start).
    deinit {
        queue.withLock { queue in
            guard !queue.closed else { return }
            close(epollFD)
            close(wakeFD)
        }
    }

    /// Queues `job` for the loop thread; false (and the job dropped) once the loop has ended.
    @discardableResult
    func execute(_ job: @escaping Job) -> Bool {
        queue.withLock { queue in
            guard !queue.closed else { return false }
            let wasIdle = queue.jobs.isEmpty
            queue.jobs.append(job)
            if wasIdle {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
            }
            return true
        }
    }

    /// The jobs queued so far, emptied.
    func takeJobs() -> [Job] {
        queue.withLock { queue in
            var count: UInt64 = 0
            _ = read(wakeFD, &count, MemoryLayout<UInt64>.size)
            defer { queue.jobs.removeAll() }
            return queue.jobs
        }
    }

    /// Registers or changes interest in `fd`, tagged `id`.
    func watch(_ fd: Int32, as id: UInt64, writable: Bool, operation: Int32) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.u64 = id
        _ = epoll_ctl(epollFD, operation, fd, &event)
    }

    func unwatch(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
    }

    /// Called by the thread as its last act: closes the descriptors and wakes ``waitForExit()``.
    func finish() {
        let waiters = queue.withLock { queue in
            queue.closed = true
            queue.jobs.removeAll()
            close(epollFD)
            close(wakeFD)
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
