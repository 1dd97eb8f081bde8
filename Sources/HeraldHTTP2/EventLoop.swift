import CNGHTTP2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One epoll set and its eventfd wake-up: the loop of a thread of its own (the push client's,
/// or each of the sandbox server's). Other threads only call ``wake()``; the rest is the loop
/// thread's.
///
/// Events carry a `u64` tag: ``wakeTag`` for the wake-up, the owner's own tags for its sockets.
package final class EventLoop: Sendable {
    /// The tag of the wake-up's events.
    package static let wakeTag: UInt64 = 0

    private let epollFD: Int32
    private let wakeFD: Int32
    /// A wake-up was written and the loop has not drained it yet: a burst costs one write.
    private let wakePending = Atomic<Bool>(false)

    package init<Failure: NativeCallError>(throwing: Failure.Type) throws(Failure) {
        // TLS writes go through write(2), which raises SIGPIPE on a connection the peer closed.
        signal(SIGPIPE, SIG_IGN)
        epollFD = try NativeCall<Failure>.system(epoll_create1(Int32(EPOLL_CLOEXEC)), "epoll_create1")
        do {
            wakeFD = try NativeCall<Failure>.system(
                eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK)), "eventfd")
        } catch {
            close(epollFD)
            throw error
        }
        watch(wakeFD, tag: Self.wakeTag, writable: false, adding: true)
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    /// Makes the loop's next (or current) wait return with a ``wakeTag`` event; from any thread,
    /// after queueing what the loop is woken for (under the lock the loop reads it with).
    package func wake() {
        guard !wakePending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Takes the wake-up, before the loop reads what it was woken for. The eventfd is read before
    /// the flag is cleared: a ``wake()`` in between writes nothing, and what it was for is queued
    /// before the loop reads its queue; the other way round, its write would be read here and
    /// the flag left set with nothing to wake the next wait.
    package func drainWake() {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, MemoryLayout<UInt64>.size)
        wakePending.store(false, ordering: .sequentiallyConsistent)
    }

    /// Waits for events up to `timeout` milliseconds (-1: no limit); answers how many arrived.
    package func wait(into events: inout [epoll_event], timeout: Int32) -> Int {
        max(0, Int(epoll_wait(epollFD, &events, Int32(events.count), timeout)))
    }

    /// Registers (`adding`) or changes interest in `fd`, tagged `tag`: readable, and writable too
    /// when asked.
    package func watch(_ fd: Int32, tag: UInt64, writable: Bool, adding: Bool) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.u64 = tag
        _ = epoll_ctl(epollFD, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
    }

    /// Asks for ONE report of `fd` becoming readable (or writable, when asked) or hung up, tagged
    /// `tag`, registering it first when it is new; after the report it stays registered but
    /// silent until armed again. Answers 0, or the `errno` of the failed `epoll_ctl`.
    package func arm(_ fd: Int32, tag: UInt64, writable: Bool) -> Int32 {
        var event = epoll_event()
        event.events =
            (writable ? EPOLLOUT.rawValue : EPOLLIN.rawValue) | EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
        event.data.u64 = tag
        if epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) == 0 { return 0 }
        guard errno == ENOENT else { return errno }
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : errno
    }

    package func unwatch(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
    }
}
