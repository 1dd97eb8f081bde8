import Synchronization

/// A response body produced over time (server-sent events). The producer writes chunks;
/// `finish()` ends the response. When the client goes away `write` returns false and the
/// `onClose` handlers run.
public final class ResponseStream: Sendable {
    /// Bytes a slow client may leave unread before the stream is treated as gone.
    public static let maxBufferedBytes = 4 * 1024 * 1024

    struct State {
        var pending: [UInt8] = []
        var pendingStart = 0
        var finished = false
        var clientGone = false
        /// The client fell too far behind; its connection is cut rather than ended.
        var overflowed = false
        var closeHandlers: [@Sendable () -> Void] = []
        var closeFired = false
        /// Set while the transport is parked waiting for data; taking it wakes the transport.
        var waker: (@Sendable () -> Void)?

        var buffered: Int { pending.count - pendingStart }

        /// Marks the stream closed and hands back what must run outside the lock.
        mutating func close() -> (waker: (@Sendable () -> Void)?, handlers: [@Sendable () -> Void]) {
            let wake = waker
            waker = nil
            guard !closeFired else { return (wake, []) }
            closeFired = true
            let handlers = closeHandlers
            closeHandlers = []
            return (wake, handlers)
        }
    }

    let state = Mutex(State())

    public init() {}

    /// Queues bytes for the client. Returns false once the client has gone or the stream
    /// was finished (the bytes are dropped then).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var overflow: (waker: (@Sendable () -> Void)?, handlers: [@Sendable () -> Void])?
        let (accepted, waker) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.finished, !state.clientGone else { return (false, nil) }
            guard !bytes.isEmpty else { return (true, nil) }
            if state.buffered + bytes.count > Self.maxBufferedBytes {
                state.clientGone = true
                state.overflowed = true
                state.pending = []
                state.pendingStart = 0
                overflow = state.close()
                return (false, nil)
            }
            if state.pendingStart > 0 && state.pendingStart == state.pending.count {
                state.pending.removeAll(keepingCapacity: true)
                state.pendingStart = 0
            }
            state.pending.append(contentsOf: bytes)
            let waker = state.waker
            state.waker = nil
            return (true, waker)
        }
        waker?()
        if let overflow {
            overflow.waker?()
            for handler in overflow.handlers { handler() }
        }
        return accepted
    }

    /// Ends the response once the queued bytes are sent. Runs the `onClose` handlers.
    public func finish() {
        let actions = state.withLock { state -> (waker: (@Sendable () -> Void)?, handlers: [@Sendable () -> Void])? in
            guard !state.finished, !state.clientGone else { return nil }
            state.finished = true
            return state.close()
        }
        guard let actions else { return }
        actions.waker?()
        for handler in actions.handlers { handler() }
    }

    /// True once the client fell too far behind (its connection is to be reset).
    var hasOverflowed: Bool {
        state.withLock { $0.overflowed }
    }

    /// True once the stream was finished or the client has gone.
    public var isClosed: Bool {
        state.withLock { $0.finished || $0.clientGone }
    }

    /// Registers a handler run once, when the client disconnects or `finish()` is called.
    /// Runs at once if the stream is already closed.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.closeFired { return true }
            state.closeHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    // MARK: Transport side

    enum ReadOutcome: Equatable {
        case bytes(Int)
        case parked
        case endOfStream
        /// The client left (or the connection ended): nothing more to send.
        case clientGone
        /// The client fell too far behind: abort the connection.
        case overflowed
    }

    /// Copies queued bytes into `buffer`. With nothing queued, calls `park` inside the
    /// lock (so no writer can slip in between) and stores the waker it returns.
    func transportRead(into buffer: UnsafeMutableRawBufferPointer, park: () -> @Sendable () -> Void) -> ReadOutcome {
        state.withLock { state in
            let available = state.buffered
            if available > 0 {
                let count = min(available, buffer.count)
                state.pending.withUnsafeBytes { source in
                    buffer.baseAddress!.copyMemory(from: source.baseAddress! + state.pendingStart, byteCount: count)
                }
                state.pendingStart += count
                if state.pendingStart == state.pending.count {
                    state.pending.removeAll(keepingCapacity: state.pending.count <= 64 * 1024)
                    state.pendingStart = 0
                }
                return .bytes(count)
            }
            if state.overflowed { return .overflowed }
            if state.clientGone { return .clientGone }
            if state.finished { return .endOfStream }
            state.waker = park()
            return .parked
        }
    }

    /// The connection ended (client disconnect, error or server shutdown).
    func transportClosed() {
        let actions = state.withLock { state -> (waker: (@Sendable () -> Void)?, handlers: [@Sendable () -> Void]) in
            if !state.finished { state.clientGone = true }
            state.pending = []
            state.pendingStart = 0
            return state.close()
        }
        actions.waker?()
        for handler in actions.handlers { handler() }
    }

    /// Takes whatever is queued now and marks the client gone (in-process client).
    func drainAndDetach() -> [UInt8] {
        let bytes = state.withLock { Array($0.pending[$0.pendingStart...]) }
        transportClosed()
        return bytes
    }
}
