import CMicroHTTPD

/// Connects a `ResponseStream` to the connection sending it: the content reader drains
/// it, parks (suspends) the connection when it is empty, and a write, a finish or a
/// client hang-up resumes it.
final class StreamLink: Sendable {
    let core: ServerCore
    let connection: ConnectionHandle
    let stream: ResponseStream
    private let fd: Int32
    private let watchID: UInt64

    init(core: ServerCore, connection: ConnectionHandle, stream: ResponseStream) {
        self.core = core
        self.connection = connection
        self.stream = stream
        self.fd = herald_mhd_connection_fd(connection.pointer)
        self.watchID = core.watcher.makeID()
        core.streamLinkCreated()
    }

    deinit {
        core.streamLinkDestroyed()
    }

    /// The content reader, on the connection's thread.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let outcome = stream.transportRead(into: buffer) {
            core.suspend(connection)
            if fd >= 0 {
                core.watcher.watch(fd: fd, id: watchID) { [self] in self.stream.transportClosed() }
            }
            return { [self] in self.wake() }
        }
        switch outcome {
        case .bytes(let count): return count
        case .parked: return 0
        case .endOfStream, .clientGone: return MHD.endOfStream
        case .overflowed: return MHD.endWithError
        }
    }

    private func wake() {
        if fd >= 0 { core.watcher.unwatch(fd: fd, id: watchID) }
        core.resume(connection)
    }
}
