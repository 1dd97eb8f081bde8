import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe that wakes the listener's thread out of `poll` (to stop it) and lets it wait for a
/// socket or a delay at once.
final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    enum Wait { case readable, woken }

    init() throws(StoreError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw StoreError(code: .postgres, message: "could not create the listener's wake pipe (errno \(errno))")
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the waiter; stays signalled (every later wait returns at once).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Waits until `socket` is readable (or closed) or the pipe is signalled.
    func waitReadable(_ socket: Int32) -> Wait {
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&fds, 2, -1) < 0 && errno == EINTR {}
        return fds[1].revents != 0 ? .woken : .readable
    }

    /// Waits `seconds`, or less when the pipe is signalled.
    func wait(seconds: Double) {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32(seconds * 1000))
    }
}
