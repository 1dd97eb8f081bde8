import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread that waits (epoll) for sockets of the loopback client to become readable or
/// writable and resumes the waiting tasks, so thousands of open test connections cost no
/// threads and the cooperative pool never blocks.
final class SocketReactor: Sendable {
    static let shared = SocketReactor()

    private struct Waiter {
        let continuation: CheckedContinuation<Void, any Error>
        let deadline: ContinuousClock.Instant
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let waiters = Mutex<[Int32: Waiter]>([:])

    private init() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        precondition(epollFD >= 0 && wakeFD >= 0, "cannot create the test client's epoll set")
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        let thread = Thread { [self] in self.run() }
        thread.name = "loopback-client-reactor"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Suspends until `fd` is readable (or writable), the deadline passes
    /// (`LoopbackClientError.timedOut`) or the task is cancelled.
    func wait(fd: Int32, writable: Bool, deadline: ContinuousClock.Instant) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiters.withLock { $0[fd] = Waiter(continuation: continuation, deadline: deadline) }
                var event = epoll_event()
                event.events =
                    (writable ? EPOLLOUT.rawValue : EPOLLIN.rawValue) | EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
                event.data.fd = fd
                if epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) != 0 {
                    if errno != ENOENT || epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 {
                        let code = errno
                        if let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
                            waiter.continuation.resume(throwing: LoopbackClientError.system("epoll_ctl", code))
                        }
                        return
                    }
                }
                if Task.isCancelled, let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
                    waiter.continuation.resume(throwing: CancellationError())
                    return
                }
                wake()
            }
        } onCancel: {
            if let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
                waiter.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Forget `fd` before it is closed.
    func forget(fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        if let waiter = waiters.withLock({ $0.removeValue(forKey: fd) }) {
            waiter.continuation.resume(throwing: LoopbackClientError.closed)
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = waiters.withLock { waiters -> Int32 in
                guard let earliest = waiters.values.map(\.deadline).min() else { return -1 }
                let remaining = earliest - .now
                if remaining <= .zero { return 0 }
                let (seconds, attoseconds) = remaining.components
                let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
                return Int32(clamping: millis)
            }
            let count = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            if count < 0 && errno != EINTR { fatalError("epoll_wait failed: \(errno)") }
            for index in 0..<max(0, Int(count)) {
                let fd = events[index].data.fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, MemoryLayout<UInt64>.size)
                    continue
                }
                waiters.withLock { $0.removeValue(forKey: fd) }?.continuation.resume()
            }
            let now = ContinuousClock.now
            let expired = waiters.withLock { waiters -> [Waiter] in
                let late = waiters.filter { $0.value.deadline <= now }
                for fd in late.keys { waiters[fd] = nil }
                return Array(late.values)
            }
            for waiter in expired {
                waiter.continuation.resume(throwing: LoopbackClientError.timedOut)
            }
        }
    }
}
