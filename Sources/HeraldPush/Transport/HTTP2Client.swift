import HeraldThreads
import Synchronization

/// An HTTP/2 client for push providers: many concurrent requests multiplexed as streams over a
/// few long-lived connections per host, driven by one thread of its own (libnghttp2 and OpenSSL
/// on epoll, over the HeraldHTTP2 core).
///
/// Requests wait for an open connection to take them as a new stream rather than opening
/// another (up to `maxConnectionsPerHost`). A failure surfaces as an `HTTP2ClientError` of
/// the request it hit and never ends another request silently.
///
/// The engine (its thread, its TLS context with the certificate authorities) starts with the
/// first request: a server whose providers are configured but idle (Expo's always is) runs no
/// thread for them and has loaded no certificates.
public final class HTTP2Client: Sendable {
    private enum State {
        case idle
        case running(NGHTTP2Engine)
        case shutDown
    }

    private let configuration: HTTP2ClientConfiguration
    private let state = Mutex(State.idle)

    /// A client that starts its thread with its first request.
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        if case .running(let engine) = state.withLock({ $0 }) { engine.close() }
    }

    /// Sends `request` and answers the server's response, whatever its status.
    ///
    /// Throws `HTTP2ClientError` when no response arrived (see `Kind`), or `CancellationError`
    /// when the task is cancelled first (the stream is then reset, or the queued request dropped).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        if let engine = running { return try await engine.send(request) }
        // Starting reads the certificate authorities: never on a cooperative thread.
        let engine = try await offCooperativePool { [self] () throws(HTTP2ClientError) in try startedEngine() }
        return try await engine.send(request)
    }

    /// The running engine, started now if this is the first request; `.closed` after ``shutdown()``.
    private func startedEngine() throws(HTTP2ClientError) -> NGHTTP2Engine {
        let configuration = configuration
        return try state.withLock { state throws(HTTP2ClientError) in
            switch state {
            case .running(let engine): return engine
            case .shutDown: throw HTTP2ClientError.shutDown
            case .idle:
                let engine = try NGHTTP2Engine(configuration: configuration)
                state = .running(engine)
                return engine
            }
        }
    }

    /// Connections opened so far; fewer than requests means multiplexing.
    public var connectionsOpened: Int { running?.connectionsOpened ?? 0 }

    /// C handles of this client still allocated (a debug counter for leak tests): the TLS
    /// context while running, plus an `SSL` object and an `nghttp2_session` per open
    /// connection. Shutdown frees them all; a client that never sent holds none.
    public var liveHandles: Int { running?.liveHandles ?? 0 }

    /// Whether the first request has started the engine (tests of the idle server).
    public var isStarted: Bool { running != nil }

    private var running: NGHTTP2Engine? {
        if case .running(let engine) = state.withLock({ $0 }) { engine } else { nil }
    }

    /// Fails every request in flight with `.closed` and waits until every handle is freed; the
    /// client takes no request after it.
    public func shutdown() async {
        let engine = state.withLock { state -> NGHTTP2Engine? in
            defer { state = .shutDown }
            if case .running(let engine) = state { return engine }
            return nil
        }
        await engine?.shutdown()
    }
}
