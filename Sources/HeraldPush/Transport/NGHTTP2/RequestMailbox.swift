import HeraldHTTP2
import Synchronization

/// What other threads hand to the nghttp2 engine's loop (new requests, cancellations, looked-up
/// addresses, the order to stop), the wake-up of its event loop, and the counters both sides read.
///
/// The loop takes everything at once each turn: a burst of requests costs one wake-up.
final class RequestMailbox: Sendable {
    /// A host-name lookup's outcome for the connection `connectionID`.
    typealias Resolution = (connectionID: UInt64, result: Result<[SocketAddress], HTTP2ClientError>)

    /// What the loop takes at each turn.
    struct Mail {
        var queued: [PendingRequest]
        var cancelled: [PendingRequest]
        var resolved: [Resolution]
        var closing: Bool
    }

    private struct State {
        var mail = Mail(queued: [], cancelled: [], resolved: [], closing: false)
        /// The TLS context, until the loop takes it.
        var context: TLSContext?
        /// The loop has stopped and freed every handle.
        var finished = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    /// The loop's epoll set, woken while mail waits.
    let events: EventLoop
    /// Connections the loop opened so far.
    let connectionsOpened = Atomic<Int>(0)
    let handles: HandleCounter

    init(context: TLSContext, handles: HandleCounter) throws(HTTP2ClientError) {
        events = try EventLoop(throwing: HTTP2ClientError.self)
        state = Mutex(State(context: context))
        self.handles = handles
    }

    /// Queues `request`; false once the client is closing.
    func queue(_ request: PendingRequest) -> Bool {
        state.withLock { state in
            guard !state.mail.closing else { return false }
            state.mail.queued.append(request)
            events.wake()
            return true
        }
    }

    /// Asks the loop to drop `request`, wherever it is.
    func cancel(_ request: PendingRequest) {
        state.withLock { state in
            state.mail.cancelled.append(request)
            events.wake()
        }
    }

    /// Hands a lookup's outcome to the loop.
    func resolved(_ resolution: Resolution) {
        state.withLock { state in
            state.mail.resolved.append(resolution)
            events.wake()
        }
    }

    /// Asks the loop to stop, failing everything in flight.
    func close() {
        state.withLock { state in
            state.mail.closing = true
            events.wake()
        }
    }

    /// Asks the loop to stop and waits until it has freed every handle.
    func closeAndWait() async {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                guard !state.finished else { return true }
                state.mail.closing = true
                state.stopWaiters.append(continuation)
                events.wake()
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    /// The TLS context, for the loop to own from now on.
    func takeContext() -> TLSContext? {
        state.withLock { state in
            defer { state.context = nil }
            return state.context
        }
    }

    /// Everything sent since the last turn.
    func take() -> Mail {
        events.drainWake()
        return state.withLock { state in
            let closing = state.mail.closing
            defer { state.mail = Mail(queued: [], cancelled: [], resolved: [], closing: closing) }
            return state.mail
        }
    }

    /// Called by the loop as it stops: later requests are refused. Answers the requests queued
    /// since its last turn, for it to fail.
    func stopped() -> [PendingRequest] {
        state.withLock { state in
            state.mail.closing = true
            defer { state.mail.queued.removeAll() }
            return state.mail.queued
        }
    }

    /// Called by the loop once it has let go of every handle: `closeAndWait` callers resume.
    func finished() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.stopWaiters.removeAll() }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
