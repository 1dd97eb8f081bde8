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
        /// The first request is starting the engine (off the cooperative pool); others wait for it.
        case starting(Task<NGHTTP2Engine, any Error>)
        case running(NGHTTP2Engine)
        /// After ``shutdown()``: the engine it shut down, if one had started, for the counters.
        case shutDown(NGHTTP2Engine?)
    }

    private let configuration: HTTP2ClientConfiguration
    private let state = Mutex(State.idle)

    /// A client that starts its thread with its first request.
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        switch state.withLock({ $0 }) {
        case .running(let engine), .shutDown(let engine?): engine.close()
        case .starting(let task): Task { try? await task.value.close() }
        case .idle, .shutDown(nil): break
        }
    }

    /// Sends `request` and answers the server's response, whatever its status.
    ///
    /// Throws `HTTP2ClientError` when no response arrived (see `Kind`), or `CancellationError`
    /// when the task is cancelled first (the stream is then reset, or the queued request dropped).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await engine().send(request)
    }

    /// The running engine. The first request starts it on a dispatch thread (it reads the
    /// certificate authorities), every request meanwhile waits for that start, and no lock is held
    /// across it. A start that fails is a retryable `.connectionRefused` (descriptors may be
    /// short for a moment) and the next request tries again; after ``shutdown()``, `.closed`.
    private func engine() async throws -> NGHTTP2Engine {
        let configuration = configuration
        let task = try state.withLock { state throws(HTTP2ClientError) -> Task<NGHTTP2Engine, any Error> in
            switch state {
            case .running(let engine): return Task { engine }
            case .starting(let task): return task
            case .shutDown: throw .shutDown
            case .idle:
                let task = Task {
                    try await offCooperativePool { () throws -> NGHTTP2Engine in
                        do throws(HTTP2ClientError) {
                            return try NGHTTP2Engine(configuration: configuration)
                        } catch {
                            throw HTTP2ClientError(
                                kind: .connectionRefused, code: error.code, library: error.library,
                                message: "the HTTP/2 client could not start: \(error.message)")
                        }
                    }
                }
                state = .starting(task)
                return task
            }
        }
        let started: NGHTTP2Engine
        do {
            started = try await task.value
        } catch {
            state.withLock { if case .starting = $0 { $0 = .idle } }
            throw error
        }
        return try state.withLock { state throws(HTTP2ClientError) in
            switch state {
            case .starting: state = .running(started)
            case .running, .idle: break
            // ``shutdown()`` took the start over and shuts this engine down.
            case .shutDown: throw .shutDown
            }
            return started
        }
    }

    /// Connections opened so far; fewer than requests means multiplexing.
    public var connectionsOpened: Int { started?.connectionsOpened ?? 0 }

    /// C handles of this client still allocated (a debug counter for leak tests): the TLS
    /// context while running, plus an `SSL` object and an `nghttp2_session` per open
    /// connection. Shutdown frees them all; a client that never sent holds none.
    public var liveHandles: Int { started?.liveHandles ?? 0 }

    /// Whether the first request has started the engine (tests of the idle server).
    public var isStarted: Bool { started != nil }

    /// The engine once started, also after ``shutdown()``.
    private var started: NGHTTP2Engine? {
        switch state.withLock({ $0 }) {
        case .running(let engine): engine
        case .shutDown(let engine): engine
        case .idle, .starting: nil
        }
    }

    /// Fails every request in flight with `.closed` and waits until every handle is freed (an
    /// engine still starting is waited for, then shut down); the client takes no request after it.
    public func shutdown() async {
        let (engine, starting) = state.withLock { state -> (NGHTTP2Engine?, Task<NGHTTP2Engine, any Error>?) in
            switch state {
            case .idle:
                state = .shutDown(nil)
                return (nil, nil)
            case .starting(let task):
                state = .shutDown(nil)
                return (nil, task)
            case .running(let engine):
                state = .shutDown(engine)
                return (engine, nil)
            case .shutDown(let engine):
                return (engine, nil)
            }
        }
        var stopping = engine
        if let starting, let started = try? await starting.value {
            state.withLock { $0 = .shutDown(started) }
            stopping = started
        }
        await stopping?.shutdown()
    }
}
