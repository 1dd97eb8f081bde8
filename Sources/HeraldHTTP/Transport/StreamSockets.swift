import CMicroHTTPD
import FoundationEssentials
import HeraldThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Open event streams, sent by one thread of their own once their response is decided.
///
/// libmicrohttpd holds a memory pool for every connection for as long as it is open (the
/// request head is read into it and responses are written from it): with thousands of idle
/// streams that pool was most of what each cost (`scripts/bench-stream.py`). So a stream's
/// socket leaves the library: the transport takes a duplicate of the descriptor, the library
/// closes its own (with `MHD_USE_TURBO` it does not shut the socket down first, so the
/// connection stays up) and frees the pool, and this thread writes the response head and then
/// whatever the `ResponseStream` queues, on one epoll set: `EPOLLOUT` when a slow client's
/// socket has room again, `EPOLLRDHUP` when the client leaves, `EPOLLIN` for bytes a client
/// sends after its request (read and dropped, so closing never resets the connection over
/// them). The body is delimited by the connection's close (`Connection: close`), as HTTP/1.0
/// and 1.1 both allow.
///
/// A client that takes no bytes for `sendTimeout` while some wait for it is cut off (reset),
/// as is one whose stream overflowed (``ResponseStream/maxBufferedBytes``): neither holds a
/// place toward the connection limits for longer.
///
/// A stream costs its `ResponseStream`, an entry here and the kernel's socket; no thread, task
/// or library memory.
final class StreamSockets: Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    private let sendTimeout: Duration
    private let logger: Logger

    /// Bytes one stream may send in a turn before the others get theirs.
    static let bytesPerTurn = 256 * 1024

    /// One stream's socket, used only on the sockets' thread once adopted.
    private final class Socket: @unchecked Sendable {
        // @unchecked Sendable is safe: made by the adopting thread and handed over under the
        // `state` lock; from then on only the sockets' thread touches `unsent` and `blockedSince`.
        let id: UInt64
        let fd: Int32
        let address: String
        let stream: ResponseStream
        /// Bytes taken from the stream (the head first) that the socket has not accepted yet.
        var unsent: [UInt8]
        /// Since when the socket has refused bytes that wait for it (nil: it takes them).
        var blockedSince: ContinuousClock.Instant?

        init(id: UInt64, fd: Int32, address: String, stream: ResponseStream, head: [UInt8]) {
            self.id = id
            self.fd = fd
            self.address = address
            self.stream = stream
            self.unsent = head
        }
    }

    private struct State {
        /// Sockets adopted and not yet taken by the thread.
        var adopted: [Socket] = []
        /// Streams with new bytes (or an end) since the thread last looked.
        var woken: [UInt64] = []
        /// Every open stream, for counting and for finishing them all at a stop.
        var open: [UInt64: ResponseStream] = [:]
        /// Open streams by client address.
        var perAddress: [String: Int] = [:]
        var stopping = false
        /// Set (under the lock) when the thread closed the descriptors.
        var closed = false

        /// Whether the thread has been told of what is pending (one eventfd write per batch).
        var signalled = false

        /// Marks the thread as told; true when it was not yet (the caller writes the eventfd).
        mutating func markSignalled() -> Bool {
            defer { signalled = true }
            return !signalled
        }
    }

    /// Why a stream was not taken.
    enum Refusal: Error {
        /// Its client's address holds as many streams as it may.
        case addressFull
        /// The server is stopping.
        case stopping
    }

    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(1)
    /// Every connection the server holds, the library's and the streams' (what the connection
    /// limit counts): ``ServerCore`` adds one as the library accepts it and takes it away when the
    /// library closes it, unless it became a stream, whose end here takes it away. A connection
    /// turning into a stream is counted once throughout, never twice nor not at all.
    let connections = Atomic<Int>(0)

    init(sendTimeout: Duration, logger: Logger) throws(HTTPServerError) {
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
        self.sendTimeout = sendTimeout
        self.logger = logger
        LoopThread.detach(LoopThread.start(name: "herald-streams", stackSize: 256 * 1024) { [self] in self.run() })
    }

    /// Open streams.
    var count: Int { state.withLock { $0.open.count } }

    /// Takes over `fd` (a duplicate the caller made; it is closed here when the stream ends) to
    /// send `head`, then what `stream` queues, unless `address` already holds `perAddressCap`
    /// streams (0: no cap) or the server is stopping: then the caller keeps `fd` and answers.
    func adopt(fd: Int32, address: String, perAddressCap: Int, head: [UInt8], stream: ResponseStream)
        throws(Refusal)
    {
        let socket = Socket(
            id: nextID.add(1, ordering: .relaxed).oldValue, fd: fd, address: address, stream: stream, head: head)
        let outcome = state.withLock { state -> Result<Bool, Refusal> in
            guard !state.stopping, !state.closed else { return .failure(.stopping) }
            if perAddressCap > 0 && state.perAddress[address, default: 0] >= perAddressCap {
                return .failure(.addressFull)
            }
            state.adopted.append(socket)
            state.open[socket.id] = stream
            state.perAddress[address, default: 0] += 1
            return .success(state.markSignalled())
        }
        let signal = try outcome.get()
        // An overflow or a finish while the socket is full must still reach the thread.
        let id = socket.id
        stream.onClose { [weak self] in self?.wake(id) }
        if signal { self.signal() }
    }

    /// Ends every open stream (graceful stop): each is sent what it queued, then closed.
    func finishAll() {
        let open = state.withLock { Array($0.open.values) }
        for stream in open { stream.finish() }
    }

    /// Ends the thread; streams still open are closed as they are.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { signal() }
    }

    private func wake(_ id: UInt64) {
        let signal = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.woken.append(id)
            return state.markSignalled()
        }
        if signal { self.signal() }
    }

    private func signal() {
        state.withLock { state in
            guard !state.closed else { return }
            var one: UInt64 = 1
            _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
        }
    }

    // MARK: The sockets' thread

    private func run() {
        var sockets: [UInt64: Socket] = [:]
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var ready = Set<UInt64>()
        /// Streams that used their turn with bytes still to send: they go on next round.
        var carried = Set<UInt64>()
        while true {
            let blocked = sockets.values.contains { $0.blockedSince != nil }
            let timeout: Int32 = !carried.isEmpty ? 0 : blocked ? 1_000 : -1
            let count = epoll_wait(epollFD, &events, Int32(events.count), timeout)
            if count < 0 && errno != EINTR {
                logger.error("the streams' epoll_wait failed", metadata: ["error": ListenSocket.describe(errno)])
                break
            }
            for index in 0..<Int(max(0, count)) {
                let id = events[index].data.u64
                if id == 0 {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, MemoryLayout<UInt64>.size)
                    continue
                }
                guard let socket = sockets[id] else { continue }
                let flags = events[index].events
                var gone = flags & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                if !gone && flags & EPOLLIN.rawValue != 0 {
                    gone = !drainInput(socket, using: &buffer)
                }
                if gone {
                    socket.stream.transportClosed()
                    end(socket, in: &sockets, abort: false)
                    ready.remove(id)
                    carried.remove(id)
                } else if flags & EPOLLOUT.rawValue != 0 {
                    ready.insert(id)
                }
            }
            let (adopted, woken, stopping) = state.withLock { state in
                defer {
                    state.adopted = []
                    state.woken = []
                    state.signalled = false
                }
                return (state.adopted, state.woken, state.stopping)
            }
            for socket in adopted {
                var event = epoll_event()
                event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
                event.data.u64 = socket.id
                sockets[socket.id] = socket
                if epoll_ctl(epollFD, EPOLL_CTL_ADD, socket.fd, &event) != 0 {
                    socket.stream.transportClosed()
                    end(socket, in: &sockets, abort: true)
                    continue
                }
                ready.insert(socket.id)
            }
            ready.formUnion(woken)
            ready.formUnion(carried)
            carried.removeAll(keepingCapacity: true)
            for id in ready {
                guard let socket = sockets[id] else { continue }
                switch send(socket, using: &buffer) {
                case .waiting: break
                case .turnUsed: carried.insert(id)
                case .ended(let abort): end(socket, in: &sockets, abort: abort)
                }
            }
            ready.removeAll(keepingCapacity: true)
            cutOffStalled(&sockets)
            if stopping { break }
        }
        // Stopping is set with the leftovers taken, so no socket is adopted after them (the loop
        // may also have ended on an epoll error, before any stop): one adopted later would be
        // neither sent nor closed, and would hold its place in the connection count.
        let leftover = state.withLock { state in
            defer {
                state.adopted = []
                state.stopping = true
            }
            return state.adopted
        }
        for socket in leftover { sockets[socket.id] = socket }
        for socket in sockets.values {
            socket.stream.transportClosed()
            end(socket, in: &sockets, abort: false)
        }
        state.withLock { state in
            state.closed = true
            state.open = [:]
            state.perAddress = [:]
            close(epollFD)
            close(wakeFD)
        }
    }

    private enum SendOutcome {
        /// Everything queued was sent and the stream is parked, or the socket is full.
        case waiting
        /// The stream sent its turn's share and has more.
        case turnUsed
        /// The stream ended (or its client left); `abort` resets the connection.
        case ended(abort: Bool)
    }

    /// Sends what the socket owes and what the stream queued, until the socket is full, the
    /// stream is empty (parked: its next write wakes this thread), it ended, or it used its turn.
    private func send(_ socket: Socket, using buffer: inout [UInt8]) -> SendOutcome {
        if socket.stream.hasOverflowed { return .ended(abort: true) }
        var sentThisTurn = 0
        while true {
            if !socket.unsent.isEmpty {
                let sent = socket.unsent.withUnsafeBytes { bytes in
                    Glibc.send(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if sent < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK {
                        if socket.blockedSince == nil { socket.blockedSince = .now }
                        return .waiting
                    }
                    socket.stream.transportClosed()
                    return .ended(abort: false)
                }
                socket.blockedSince = nil
                socket.unsent.removeFirst(sent)
                sentThisTurn += sent
                if !socket.unsent.isEmpty { continue }
                if sentThisTurn >= Self.bytesPerTurn { return .turnUsed }
            }
            let id = socket.id
            let outcome = buffer.withUnsafeMutableBytes { bytes in
                socket.stream.transportRead(into: bytes) { { [weak self] in self?.wake(id) } }
            }
            switch outcome {
            case .bytes(let count):
                socket.unsent = Array(buffer[0..<count])
            case .parked:
                return .waiting
            case .endOfStream, .clientGone:
                return .ended(abort: false)
            case .overflowed:
                return .ended(abort: true)
            }
        }
    }

    /// Reads and drops what the client sent after its request. False when the client has gone
    /// (end of file or an error).
    private func drainInput(_ socket: Socket, using buffer: inout [UInt8]) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                recv(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 { continue }
            if count == 0 { return false }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK
        }
    }

    /// Resets the connections whose clients took nothing for `sendTimeout` while bytes waited.
    private func cutOffStalled(_ sockets: inout [UInt64: Socket]) {
        let limit = ContinuousClock.now - sendTimeout
        for socket in sockets.values {
            guard let since = socket.blockedSince, since <= limit else { continue }
            logger.notice(
                "stream cut off: its client took no bytes in time",
                metadata: ["client": socket.address, "timeout": "\(sendTimeout)"])
            socket.stream.transportClosed()
            end(socket, in: &sockets, abort: true)
        }
    }

    /// Closes the socket: a finished stream's connection is shut down after its last bytes, a
    /// client that fell too far behind is reset.
    private func end(_ socket: Socket, in sockets: inout [UInt64: Socket], abort: Bool) {
        sockets[socket.id] = nil
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, socket.fd, &event)
        if abort {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(socket.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        } else {
            _ = shutdown(socket.fd, Int32(SHUT_WR))
        }
        close(socket.fd)
        connections.subtract(1, ordering: .relaxed)
        state.withLock { state in
            state.open[socket.id] = nil
            if let count = state.perAddress[socket.address] {
                state.perAddress[socket.address] = count > 1 ? count - 1 : nil
            }
        }
    }
}
