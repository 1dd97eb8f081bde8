import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd that hands every request to a `Responder`.
///
/// Event-loop threads (epoll) only parse and send; each request's responder runs in a
/// Swift task while its connection is suspended, so slow handlers and thousands of idle
/// event streams cost no threads.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let dispatcher: RequestDispatcher
    private let logger: Logger

    private enum State {
        case idle
        case running(MHDDaemon, port: Int)
        case stopping(MHDDaemon, port: Int)
        case stopped(port: Int)
    }

    private let state = Mutex(State.idle)

    public init(configuration: HTTPServerConfiguration, responder: any Responder, logger: Logger) {
        self.configuration = configuration
        self.dispatcher = RequestDispatcher(responder: responder, logger: logger)
        self.logger = logger
    }

    /// Binds and starts serving. Throws `HTTPServerError` (code `.addressInUse` when the
    /// port is taken).
    public func start() throws {
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(.alreadyStarted, "The server was already started.")
            }
            let openFiles = ListenSocket.raiseOpenFileLimit()
            let connectionLimit = configuration.effectiveConnectionLimit(openFiles: openFiles)
            let listen = try ListenSocket.open(host: configuration.host, port: configuration.port)
            let sockets: StreamSockets
            do throws(HTTPServerError) {
                sockets = try StreamSockets(sendTimeout: configuration.idleTimeout, logger: logger)
            } catch {
                close(listen.fd)
                throw error
            }
            let core = ServerCore(
                configuration: configuration, dispatcher: dispatcher, logger: logger, sockets: sockets,
                connectionLimit: connectionLimit)
            let daemon: MHDDaemon
            do throws(HTTPServerError) {
                daemon = try MHDDaemon(core: core, listen: listen)
            } catch {
                sockets.stop()
                throw error
            }
            state = .running(daemon, port: listen.port)
            if let configured = configuration.connectionLimit, configured > connectionLimit {
                logger.warning(
                    "connection limit lowered to keep descriptors in reserve",
                    metadata: [
                        "configured": String(configured), "connection_limit": String(connectionLimit),
                        "open_files": String(openFiles),
                    ])
            }
            logger.info(
                "http server started",
                metadata: [
                    "host": configuration.host, "port": String(listen.port), "open_files": String(openFiles),
                    "connection_limit": String(connectionLimit),
                    "connections_per_address": String(configuration.connectionsPerAddress),
                ])
        }
    }

    /// The bound port (the real one when configured with port 0); 0 before `start()`.
    public var port: Int {
        state.withLock { state in
            switch state {
            case .idle: 0
            case .running(_, let port), .stopping(_, let port), .stopped(let port): port
            }
        }
    }

    /// The connection limit in force (0 before `start()`).
    public var connectionLimit: Int {
        daemon?.core.connectionLimit ?? 0
    }

    /// Open connections right now (0 when not running).
    public var currentConnections: Int {
        daemon?.core.openConnections ?? 0
    }

    private var daemon: MHDDaemon? {
        state.withLock { state in
            switch state {
            case .running(let daemon, _), .stopping(let daemon, _): daemon
            case .idle, .stopped: nil
            }
        }
    }

    /// Stops gracefully: stops accepting connections, lets running handlers finish for up
    /// to `gracePeriod` (then answers them 503 and cancels them), finishes open streams,
    /// and stops the daemon. Safe to call more than once.
    public func stop(gracePeriod: Duration = .seconds(10)) async {
        // An unstructured task, so cancelling the caller cannot cut the drain short.
        await Task { await self.stopNow(gracePeriod: gracePeriod) }.value
    }

    private func stopNow(gracePeriod: Duration) async {
        let taken = state.withLock { state -> (MHDDaemon, Int)? in
            guard case .running(let daemon, let port) = state else { return nil }
            state = .stopping(daemon, port: port)
            return (daemon, port)
        }
        guard let (daemon, port) = taken else {
            // Another caller is stopping it: return once that is done.
            while case .stopping = state.withLock({ $0 }) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return
        }
        let core = daemon.core
        let deadline = ContinuousClock.now + gracePeriod
        core.beginStopping()
        daemon.quiesce()
        logger.info(
            "http server stopping", metadata: ["port": String(port), "in_flight": String(core.handlersInFlight)])

        await Self.wait(until: deadline) { core.handlersInFlight == 0 }
        core.forceCompleteHandlers()
        core.finishStreams()
        // Give the final bytes (503s, stream ends) a moment to reach the clients.
        await Self.wait(until: .now + .seconds(1)) { core.handlersInFlight == 0 && core.openStreams == 0 }
        daemon.stop()
        state.withLock { $0 = .stopped(port: port) }
        logger.info("http server stopped", metadata: ["port": String(port)])
    }

    private static func wait(until deadline: ContinuousClock.Instant, _ done: () -> Bool) async {
        while !done() && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: Diagnostics for tests

    /// Per-request states not yet released (0 when idle: no leaks).
    var liveRequestStates: Int {
        daemon?.core.liveRequests ?? 0
    }

    var core: ServerCore? {
        daemon?.core
    }

    /// True once a stop has begun and new connections are refused.
    var isRefusingConnections: Bool {
        daemon?.isQuiesced ?? false
    }
}
