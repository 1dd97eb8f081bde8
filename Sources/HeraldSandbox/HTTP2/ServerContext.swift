import HeraldHTTP2
import Synchronization

/// What the event loops of one server share: the answering handler, the TLS context, the fault settings
/// and the counters.
final class ServerContext: Sendable {
    let configuration: HTTP2ServerConfiguration
    let answer: @Sendable (HTTP2Request) -> HTTP2Answer
    let tls: TLSContext?
    let loops: [ServerLoop]
    let responseDelay = Mutex<Duration>(.zero)
    let connectionsAccepted = Atomic<Int>(0)
    let connectionsOpen = Atomic<Int>(0)
    /// RST_STREAM and GOAWAY frames clients sent: a client giving up on streams shows here.
    let resetsReceived = Atomic<Int>(0)
    let goAwaysReceived = Atomic<Int>(0)
    private let nextConnectionID = Atomic<UInt64>(LoopEvent.firstConnection)
    private let nextLoop = Atomic<Int>(0)

    init(
        configuration: HTTP2ServerConfiguration, tls: TLSContext?, loops: [ServerLoop],
        answer: @escaping @Sendable (HTTP2Request) -> HTTP2Answer
    ) {
        self.configuration = configuration
        self.tls = tls
        self.loops = loops
        self.answer = answer
    }

    /// A connection id unique within the server.
    func makeConnectionID() -> UInt64 {
        nextConnectionID.add(1, ordering: .relaxed).oldValue
    }

    /// The loop for the next accepted connection (round robin).
    func nextLoopForConnection() -> ServerLoop {
        loops[nextLoop.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Asks the handler on the loop thread: the response when it is ready at once and no
    /// response delay is set. Otherwise nil, and a task waits for the answer and the delay, then
    /// hands the response back to the connection's loop.
    func dispatch(_ request: HTTP2Request, streamID: Int32, loop: ServerLoop) -> HTTP2Response? {
        let answer = answer(request)
        let delay = responseDelay.withLock { $0 }
        if case .now(let response) = answer, delay == .zero { return response }
        Task {
            let response = await answer.response
            if delay > .zero { try? await Task.sleep(for: delay) }
            loop.execute { runner in runner.respond(connectionID: request.connectionID, streamID: streamID, response) }
        }
        return nil
    }
}

/// The tags of the epoll events that are not connections.
enum LoopEvent {
    static let wake = EventLoop.wakeTag
    static let listener: UInt64 = 1
    static let firstConnection: UInt64 = 2
}
