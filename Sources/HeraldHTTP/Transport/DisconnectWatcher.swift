import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Notices clients hanging up on parked (suspended) event streams. libmicrohttpd does
/// not watch the sockets of suspended connections, so one thread waits on an epoll set
/// of those sockets for EPOLLRDHUP instead of a thread or a poll per stream.
final class DisconnectWatcher: Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private struct Registrations {
        var handlers: [UInt64: @Sendable () -> Void] = [:]
        /// Set (under the lock) when the thread closed the descriptors: epoll calls after
        /// that could hit a reused descriptor number.
        var closed = false
    }

    private let registrations = Mutex(Registrations())
    private let nextID = Atomic<UInt64>(1)
    private let stopping = Atomic<Bool>(false)

    init() throws(HTTPServerError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else {
            throw HTTPServerError(
                .socketFailed, "epoll_create1 failed: \(ListenSocket.describe(errno)).", systemError: errno)
        }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            close(epollFD)
            throw HTTPServerError(.socketFailed, "eventfd failed: \(ListenSocket.describe(errno)).", systemError: errno)
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        let thread = Thread { [self] in self.run() }
        thread.name = "herald-hangup-watch"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    func makeID() -> UInt64 {
        nextID.add(1, ordering: .relaxed).oldValue
    }

    /// Calls `onHangUp` once if the peer of `fd` closes, unless `unwatch` comes first.
    func watch(fd: Int32, id: UInt64, onHangUp: @escaping @Sendable () -> Void) {
        registrations.withLock { registrations in
            guard !registrations.closed else { return }
            var event = epoll_event()
            event.events = EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
            event.data.u64 = id
            if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 {
                guard errno == EEXIST, epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) == 0 else { return }
            }
            registrations.handlers[id] = onHangUp
        }
    }

    /// Stops watching; must be called before the socket can be closed by its owner.
    func unwatch(fd: Int32, id: UInt64) {
        registrations.withLock { registrations in
            registrations.handlers[id] = nil
            guard !registrations.closed else { return }
            var event = epoll_event()
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        }
    }

    /// Ends the thread (it closes the descriptors on its way out).
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        registrations.withLock { registrations in
            guard !registrations.closed else { return }
            var one: UInt64 = 1
            _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while !stopping.load(ordering: .acquiring) {
            let count = epoll_wait(epollFD, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<Int(count) {
                let id = events[index].data.u64
                guard id != 0 else { continue }
                let handler = registrations.withLock { $0.handlers.removeValue(forKey: id) }
                handler?()
            }
        }
        registrations.withLock { registrations in
            registrations.handlers.removeAll()
            registrations.closed = true
            close(epollFD)
            close(wakeFD)
        }
    }
}
