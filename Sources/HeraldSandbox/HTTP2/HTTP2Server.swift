import HeraldHTTP2
import HeraldThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/2 server on loopback over libnghttp2: cleartext with prior knowledge (h2c) or TLS with
/// ALPN `h2`, a few epoll event-loop threads, many concurrent streams per connection, each
/// complete request answered by a handler, on the loop thread when its answer is ready at once
/// (``HTTP2Answer``). It also injects the faults a provider sandbox and the push client's tests
/// need: GOAWAY now or after some requests, connections cut mid-stream, streams reset, slow
/// responses, answers before the body, no `h2` in ALPN, a crash (``HTTP2ServerFaults``).
///
/// Call ``stop()`` when done: the event-loop threads otherwise run until the process ends.
public final class HTTP2Server: Sendable {
    /// The bound port (the one picked when the configuration asked for 0).
    public let port: Int
    private let context: ServerContext
    private let threads: [pthread_t]
    private let stopping = Mutex(false)

    private init(port: Int, context: ServerContext, threads: [pthread_t]) {
        self.port = port
        self.context = context
        self.threads = threads
    }

    /// Binds, starts the event loops and answers every request with `handler`, in a task.
    public static func start(
        configuration: HTTP2ServerConfiguration = HTTP2ServerConfiguration(),
        handler: @escaping @Sendable (HTTP2Request) async -> HTTP2Response
    ) throws(HTTP2ServerError) -> HTTP2Server {
        try start(configuration: configuration, answering: { request in .later { await handler(request) } })
    }

    /// Binds, starts the event loops and answers every request with `answer`, which runs on the
    /// connection's event-loop thread: it must not block.
    public static func start(
        configuration: HTTP2ServerConfiguration = HTTP2ServerConfiguration(),
        answering answer: @escaping @Sendable (HTTP2Request) -> HTTP2Answer
    ) throws(HTTP2ServerError) -> HTTP2Server {
        let tls = try configuration.tls.map { identity throws(HTTP2ServerError) in
            try TLSContext(
                serverCertificate: identity.certificatePath, privateKey: identity.privateKeyPath,
                selectsH2: !configuration.faults.refusesH2InALPN, throwing: HTTP2ServerError.self)
        }
        let listener = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        var loops: [ServerLoop] = []
        do {
            for index in 0..<configuration.eventLoops { loops.append(try ServerLoop(index: index)) }
        } catch {
            close(listener.fd)
            throw error
        }
        let context = ServerContext(configuration: configuration, tls: tls, loops: loops, answer: answer)
        let threads = loops.map { loop in
            let runner = LoopRunner(loop: loop, server: context, listenFD: loop.index == 0 ? listener.fd : nil)
            return LoopThread.start(name: "h2-\(listener.port)-\(loop.index)") { runner.run() }
        }
        return HTTP2Server(port: listener.port, context: context, threads: threads)
    }

    /// Stops accepting, sends GOAWAY on every connection, lets streams in progress finish within
    /// the configured grace, then closes everything and ends the threads. Later calls return at once.
    public func stop() async {
        let deadline = ContinuousClock.now + context.configuration.shutdownGrace
        await end { $0.beginStop(deadline: deadline) }
    }

    /// Ends the server as a crash would: stops listening and resets every connection at once,
    /// without GOAWAY, failing every stream in flight; then ends the threads. The port may be
    /// bound again at once. Later calls, and ``stop()`` after it, return at once.
    public func kill() async {
        await end { $0.abort() }
    }

    /// Runs `ending` on every loop, once in the server's life, and waits for the threads.
    private func end(_ ending: @escaping @Sendable (LoopRunner) -> Void) async {
        guard
            !stopping.withLock({ stopping in
                defer { stopping = true }
                return stopping
            })
        else { return }
        for loop in context.loops { loop.execute(ending) }
        for loop in context.loops { await loop.waitForExit() }
        for thread in threads { LoopThread.join(thread) }
    }

    // MARK: Faults

    /// Sends GOAWAY on every open connection now, naming the last stream each took. With
    /// ``HTTP2ErrorCode/noError`` those streams are still answered and the connection closes
    /// once they are; any other code closes it as soon as GOAWAY is out, losing them. New
    /// connections are accepted as before.
    public func goAway(errorCode: HTTP2ErrorCode = .noError) {
        for loop in context.loops { loop.execute { $0.goAway(errorCode) } }
    }

    /// Resets every open TCP connection now (no GOAWAY), failing the streams on it.
    public func dropConnections() {
        for loop in context.loops { loop.execute { $0.dropConnections() } }
    }

    /// Added before each response is sent (0: none).
    public var responseDelay: Duration {
        get { context.responseDelay.withLock { $0 } }
        set { context.responseDelay.withLock { $0 = newValue } }
    }

    // MARK: Counters

    /// Connections accepted since start.
    public var connectionsAccepted: Int { context.connectionsAccepted.load(ordering: .relaxed) }

    /// RST_STREAM frames received from clients so far (a client cancelling or failing a stream).
    public var resetsReceived: Int { context.resetsReceived.load(ordering: .relaxed) }

    /// GOAWAY frames received from clients so far (a client closing, or refusing the server's frames).
    public var goAwaysReceived: Int { context.goAwaysReceived.load(ordering: .relaxed) }

    /// Connections open now.
    public var openConnections: Int { context.connectionsOpen.load(ordering: .relaxed) }
}
