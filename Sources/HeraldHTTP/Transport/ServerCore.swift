import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The transport's shared state, reached from libmicrohttpd callbacks (as their closure
/// argument) and from handler tasks: request bookkeeping, handler launch, response
/// queueing, and the record of suspended connections that makes a clean stop possible.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let dispatcher: RequestDispatcher
    let logger: Logger
    /// Open event streams, once their sockets left the library.
    let sockets: StreamSockets
    /// Most simultaneous connections, from the configuration or the open-files limit.
    let connectionLimit: Int
    /// `nil` when the request timeout is off.
    private let deadlines: DeadlineSweeper<ConnectionRequest>?
    /// Connections still sending a request head or body; `nil` when both deadlines are off.
    private let arrivals: DeadlineSweeper<PeerConnection>?

    struct Registry {
        var stopping = false
        /// Requests whose responder runs or whose response is being sent.
        var handlers: [ObjectIdentifier: ConnectionRequest] = [:]
        var liveRequests = 0
    }

    /// Connections we suspended and have not resumed. MHD must not be stopped while any
    /// is left, and a connection must be resumed exactly once per suspension.
    struct Suspensions {
        var parked = Set<ConnectionHandle>()
        var resumesInFlight = 0
    }

    private let registry = Mutex(Registry())
    /// Answers the library gave by itself, from its log, until the connection ends.
    private let libraryAnswers = LibraryAnswers()
    private let suspensions = Mutex(Suspensions())

    init(
        configuration: HTTPServerConfiguration, dispatcher: RequestDispatcher, logger: Logger,
        sockets: StreamSockets, connectionLimit: Int
    ) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.logger = logger
        self.sockets = sockets
        self.connectionLimit = connectionLimit
        self.deadlines =
            configuration.requestTimeout > .zero
            ? DeadlineSweeper(shortest: configuration.requestTimeout) : nil
        let arrivalTimeouts = [configuration.headTimeout, configuration.bodyTimeout].filter { $0 > .zero }
        self.arrivals = arrivalTimeouts.min().map { DeadlineSweeper(shortest: $0) }
        deadlines?.start { [weak self] request in self?.timedOut(request) }
        arrivals?.start { [weak self] connection in self?.arrivalExpired(connection) }
    }

    deinit {
        deadlines?.stop()
        arrivals?.stop()
    }

    // MARK: Connections (notify callback, on the connection's thread)

    /// Whether a new connection may be served: the library's connections and the open streams
    /// together stay within the connection limit (the library counts only its own). Called by
    /// the library's accept policy, before the connection-started notification.
    func admitsConnection() -> Bool {
        openConnections < connectionLimit
    }

    func connectionStarted(_ connection: ConnectionHandle) -> PeerConnection {
        sockets.connections.add(1, ordering: .relaxed)
        let peer = PeerConnection(
            fd: herald_mhd_connection_fd(connection.pointer),
            address: PeerConnection.describe(herald_mhd_client_address(connection.pointer)))
        enter(.head, peer, timeout: configuration.headTimeout)
        return peer
    }

    func connectionClosed(_ peer: PeerConnection) {
        // A connection whose stream left the library is counted out when the stream ends.
        if !peer.isDetached { sockets.connections.subtract(1, ordering: .relaxed) }
        if peer.awaitsRequestLine, let status = libraryAnswers.take() {
            // Refused before a request line was read (malformed, too long, a version we do not speak).
            reportTransportAnswer(Response(status: status), to: Self.unknownRequest)
        }
        peer.closed()
        arrivals?.forget(peer)
    }

    /// Moves `peer` into `phase`, under that phase's deadline (if any).
    private func enter(_ phase: PeerConnection.Phase, _ peer: PeerConnection?, timeout: Duration) {
        guard let peer else { return }
        if let deadline = peer.enter(phase, timeout: timeout), let arrivals {
            arrivals.track(peer, until: deadline)
        } else {
            arrivals?.forget(peer)
        }
    }

    /// A connection did not deliver its request head or body in time: 408 and close.
    private func arrivalExpired(_ peer: PeerConnection) {
        guard let phase = peer.expire(farewell: Self.requestTimeoutBytes) else { return }
        let which = phase == .head ? "head" : "body"
        logger.notice(
            "request \(which) not received in time; connection closed",
            metadata: ["client": peer.address, "phase": which])
        reportTransportAnswer(Self.requestTimeoutError(phase: which).response, to: Self.unknownRequest)
    }

    /// What the access log shows for an answer to a request whose line was never read.
    private static let unknownRequest = Request(method: HTTPMethod(rawValue: "-"), path: "-")

    /// Tells the responder (its logging and metrics) of an answer the transport or the library
    /// gave without running it, as for any other answer.
    private func reportTransportAnswer(
        _ response: Response, to request: Request, startTime: ContinuousClock.Instant = .now,
        requestID: String = RequestID.generate()
    ) {
        let context = dispatcher.makeContext(requestID: requestID, startTime: startTime)
        let dispatcher = dispatcher
        Task { await dispatcher.responder.transportAnswered(request, with: response, context: context) }
    }

    private static func requestTimeoutError(phase: String) -> HTTPError {
        HTTPError(408, code: "request_timeout", message: "The request \(phase) did not arrive in time.")
    }

    /// The 408 written straight to a socket whose request is late (libmicrohttpd has no
    /// response to queue before a request head is complete).
    private static let requestTimeoutBytes: [UInt8] = {
        let body = requestTimeoutError(phase: "").jsonBody
        let head =
            "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }()

    // MARK: Access-handler steps (on the connection's thread)

    func makeRequest(connection: ConnectionHandle, method: HTTPMethod, rawPath: String, version: String)
        -> ConnectionRequest
    {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection.pointer, MHD_ValueKind.HEADER_KIND, collectHeader, pointer)
        }
        var query: [String: String] = [:]
        withUnsafeMutablePointer(to: &query) { pointer in
            _ = MHD_get_connection_values(
                connection.pointer, MHD_ValueKind.GET_ARGUMENT_KIND, collectQueryArgument, pointer)
        }
        let peer = herald_mhd_socket_context(connection.pointer).map {
            Unmanaged<PeerConnection>.fromOpaque($0).takeUnretainedValue()
        }
        let request = ConnectionRequest(
            connection: connection,
            peer: peer,
            version: version,
            method: method,
            rawPath: rawPath,
            query: query,
            headers: headers
        )
        registry.withLock { $0.liveRequests += 1 }
        return request
    }

    /// First call: the head is in. Refuses bad framing at once, and a declared body over the
    /// limit either at once (the client waits for 100 Continue, or the body is past what is
    /// worth reading) or once the body has been read and dropped, so the client sees the 413.
    func headersReceived(_ request: ConnectionRequest) -> MHD_Result {
        if let peer = request.peer, peer.state.withLock({ $0.phase == .closed }) {
            return .NO  // cut off by the head deadline while the library was parsing it
        }
        if let violation = RequestFraming.violation(version: request.version, headers: request.headers) {
            request.phase = .answered
            return queueTransportError(violation, for: request)
        }
        let declared = request.headers["Content-Length"].flatMap { Int($0) } ?? 0
        let chunked = request.headers["Transfer-Encoding"] != nil
        if declared > configuration.maxBodyBytes {
            let waitsForContinue = request.headers["Expect"]?.lowercased() == "100-continue"
            if waitsForContinue || declared > configuration.discardLimit {
                request.phase = .answered
                return queueTransportError(tooLargeError(), for: request)
            }
            request.bodyTooLarge = true
        } else if declared > 0 {
            request.body.reserveCapacity(declared)
        }
        if declared > 0 || chunked {
            enter(.body, request.peer, timeout: configuration.bodyTimeout)
        } else {
            enter(.handling, request.peer, timeout: .zero)
        }
        return .YES
    }

    /// A piece of the body. Over the limit, the rest is read and dropped so the 413 can be
    /// sent; a client that keeps sending far past the limit is cut off.
    func bodyReceived(_ request: ConnectionRequest, _ data: UnsafeRawBufferPointer) -> MHD_Result {
        request.receivedBytes += data.count
        if request.bodyTooLarge || request.receivedBytes > configuration.maxBodyBytes {
            if !request.bodyTooLarge {
                request.bodyTooLarge = true
                request.body = []
            }
            return request.receivedBytes > configuration.discardLimit ? .NO : .YES
        }
        request.body.append(contentsOf: data)
        return .YES
    }

    /// The request is complete (and again after each resume): start the responder, or
    /// send its response once there is one, or suspend until there is.
    func requestReceived(_ request: ConnectionRequest) -> MHD_Result {
        switch request.phase {
        case .answered:
            return .YES
        case .receiving:
            enter(.handling, request.peer, timeout: .zero)
            if request.bodyTooLarge {
                request.phase = .answered
                return queueTransportError(tooLargeError(), for: request)
            }
            let accepted = registry.withLock { registry -> Bool in
                guard !registry.stopping else { return false }
                registry.handlers[request.identifier] = request
                return true
            }
            guard accepted else {
                request.phase = .answered
                return queueTransportError(
                    HTTPError(503, code: "shutting_down", message: "The server is shutting down."),
                    for: request
                )
            }
            request.phase = .handling
            startHandler(request)
            return sendOrPark(request)
        case .handling:
            return sendOrPark(request)
        }
    }

    private func sendOrPark(_ request: ConnectionRequest) -> MHD_Result {
        let ready = request.shared.withLock { shared -> Response? in
            if let response = shared.response {
                shared.response = nil
                return response
            }
            guard !shared.completed else { return nil }
            shared.parked = true
            suspend(request.connection)
            return nil
        }
        guard let ready else { return .YES }
        return queue(ready, for: request)
    }

    private func startHandler(_ request: ConnectionRequest) {
        let incoming = request.incoming(body: request.body)
        request.body = []
        let context = dispatcher.makeContext(requestID: request.requestID, startTime: request.startTime)
        // Tracked before the handler can complete, so a finished request is never re-tracked.
        deadlines?.track(request, until: .now + configuration.requestTimeout)
        let handler = Task { [self] in
            let response = await dispatcher.dispatch(incoming, context: context)
            if !complete(request, with: response), case .stream(let stream) = response.body {
                stream.finish()
            }
        }
        request.shared.withLock { shared in
            if !shared.completed { shared.handlerTask = handler }
        }
    }

    /// The handler outlived the request timeout: answer 503 and cancel it.
    private func timedOut(_ request: ConnectionRequest) {
        let handler = request.shared.withLock { $0.handlerTask }
        if complete(request, with: HTTPError.timeout().response, requestID: request.requestID) {
            handler?.cancel()
            logger.warning(
                "request timed out",
                metadata: [
                    "request_id": request.requestID, "path": request.path, "timeout": "\(configuration.requestTimeout)",
                ])
        }
    }

    /// Hands `response` to the request unless it already has one; resumes the connection
    /// if it is waiting. Any thread.
    @discardableResult
    func complete(_ request: ConnectionRequest, with response: Response, requestID: String? = nil) -> Bool {
        var response = response
        if let requestID, response.headers[RequestID.headerName] == nil {
            response.headers[RequestID.headerName] = requestID
        }
        let outcome = request.shared.withLock { shared -> (won: Bool, wake: Bool) in
            guard !shared.completed else { return (false, false) }
            shared.completed = true
            shared.response = response
            let wake = shared.parked
            shared.parked = false
            shared.handlerTask = nil
            return (true, wake)
        }
        if outcome.won { deadlines?.forget(request) }
        if outcome.wake { resume(request.connection) }
        return outcome.won
    }

    // MARK: Responses (on the connection's thread)

    private func tooLargeError() -> HTTPError {
        .payloadTooLarge("The request body is larger than \(configuration.maxBodyBytes) bytes.")
    }

    /// Answers from the transport itself (bad framing, 413, 503 while stopping), closing the
    /// connection; the responder's logging and metrics are told, as for any other answer.
    private func queueTransportError(_ error: HTTPError, for request: ConnectionRequest) -> MHD_Result {
        var response = error.response
        response.headers[RequestID.headerName] = request.requestID
        response.headers["Connection"] = "close"
        reportTransportAnswer(
            response, to: request.incoming(), startTime: request.startTime, requestID: request.requestID)
        return queue(response, for: request)
    }

    private func queue(_ response: Response, for request: ConnectionRequest) -> MHD_Result {
        var response = response
        if request.method == .HEAD, case .stream(let stream) = response.body {
            stream.finish()
            response.body = .bytes([])
        }
        let stopping = registry.withLock { $0.stopping }
        let mhdResponse: OpaquePointer
        do {
            switch response.body {
            case .bytes(let bytes):
                mhdResponse = try bytes.withUnsafeBytes { buffer throws(MHDError) in
                    try MHD.check(
                        MHD_create_response_from_buffer(
                            buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                            MHD_ResponseMemoryMode.RESPMEM_MUST_COPY),
                        "MHD_create_response_from_buffer"
                    )
                }
            case .stream(let stream):
                return detach(stream, status: response.status, headers: response.headers, for: request)
            }
        } catch {
            logger.error(
                "cannot create response",
                metadata: ["error": String(describing: error), "request_id": request.requestID])
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        var headers = response.headers
        // libmicrohttpd frames the body itself.
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if stopping && headers["Connection"] == nil {
            headers["Connection"] = "close"
        }
        for (name, value) in headers {
            do {
                try MHD.check(MHD_add_response_header(mhdResponse, name, value), "MHD_add_response_header(\(name))")
            } catch {
                logger.warning(
                    "response header dropped", metadata: ["error": error.description, "request_id": request.requestID])
            }
        }
        do {
            try MHD.check(
                MHD_queue_response(request.connection.pointer, UInt32(clamping: response.status), mhdResponse),
                "MHD_queue_response"
            )
            return .YES
        } catch {
            logger.error(
                "cannot queue response", metadata: ["error": error.description, "request_id": request.requestID])
            return .NO
        }
    }

    /// Sends an event stream from ``StreamSockets``: its head is written there, the library is
    /// told to close its side (`.NO`; with `MHD_USE_TURBO` it closes its descriptor without
    /// shutting the socket down) and frees the connection's memory, and a duplicate of the
    /// descriptor carries the stream. A client over its address's connection cap gets 503
    /// `too_many_connections` instead; a stream answered while the server stops is finished at
    /// once (its head and what it queued go out, then the connection closes).
    private func detach(_ stream: ResponseStream, status: Int, headers: HTTPHeaders, for request: ConnectionRequest)
        -> MHD_Result
    {
        let fd = herald_mhd_connection_fd(request.connection.pointer)
        let copy = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1
        guard copy >= 0 else {
            logger.error(
                "cannot take over a stream's socket",
                metadata: ["error": ListenSocket.describe(errno), "request_id": request.requestID])
            stream.finish()
            return queueTransportError(
                HTTPError(503, code: "unavailable", message: "The server cannot open a stream now; try again."),
                for: request)
        }
        var noDelay: Int32 = 1
        _ = setsockopt(copy, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        if registry.withLock({ $0.stopping }) { stream.finish() }
        let head = streamHead(status: status, headers: headers, version: request.version, requestID: request.requestID)
        do {
            try sockets.adopt(
                fd: copy, address: request.peer?.address ?? "-", perAddressCap: configuration.connectionsPerAddress,
                head: head, stream: stream)
        } catch {
            close(copy)
            stream.finish()
            let refusal =
                switch error {
                case .addressFull:
                    HTTPError(
                        503, code: "too_many_connections",
                        message: "This address holds as many connections as the server allows; close one first.")
                case .stopping:
                    HTTPError(503, code: "shutting_down", message: "The server is shutting down.")
                }
            return queueTransportError(refusal, for: request)
        }
        request.detached = true
        // Counted once throughout: the stream's end, not the library's close, counts it out. (A
        // connection whose start the library did not announce was not counted yet: it is now.)
        if request.peer?.detach() != true { sockets.connections.add(1, ordering: .relaxed) }
        return .NO
    }

    /// The head of a stream's response: the body runs until the connection closes. A header
    /// libmicrohttpd would have refused (a name that is not a token, a value with CR, LF or NUL)
    /// is dropped and logged, so nothing a handler sets can split the response.
    func streamHead(status: Int, headers: HTTPHeaders, version: String, requestID: String) -> [UInt8] {
        let line = version == "HTTP/1.0" ? "HTTP/1.0" : "HTTP/1.1"
        var text = "\(line) \(status) \(status == 200 ? "OK" : "")\r\nDate: \(Self.httpDate())\r\n"
        for (name, value) in headers {
            switch name.lowercased() {
            case "content-length", "transfer-encoding", "connection", "date": continue
            default:
                guard RequestFraming.isToken(name), !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
                else {
                    logger.warning(
                        "response header dropped", metadata: ["header": name, "request_id": requestID])
                    continue
                }
                text += "\(name): \(value)\r\n"
            }
        }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Now as an HTTP date (IMF-fixdate), as libmicrohttpd writes it on its own responses.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Completion (request-completed callback)

    /// A request the library answered itself, before any access-handler call (a malformed or
    /// oversized head, a bad `Content-Length`): told to the responder's log and metrics like
    /// every other answer, with the target of its request line (its method is not known).
    func libraryAnswered(_ connection: ConnectionHandle) {
        let peer = herald_mhd_socket_context(connection.pointer).map {
            Unmanaged<PeerConnection>.fromOpaque($0).takeUnretainedValue()
        }
        let line = peer?.state.withLock { ($0.target, $0.requestLineAt) }
        peer?.requestEnded()
        let status = Int(herald_mhd_queued_status(connection.pointer))
        guard status >= 100 else { return }  // the client left before any answer
        libraryAnswers.take(status)
        reportTransportAnswer(
            Response(status: status), to: Request(method: HTTPMethod(rawValue: "-"), target: line?.0 ?? "-"),
            startTime: line?.1 ?? .now)
    }

    func requestCompleted(_ request: ConnectionRequest, reason: MHD_RequestTerminationCode) {
        request.peer?.requestEnded()
        if request.phase == .receiving {
            // The library refused the body itself (a malformed chunk): report its answer.
            let status = Int(herald_mhd_queued_status(request.connection.pointer))
            if status >= 100 {
                libraryAnswers.take(status)
                reportTransportAnswer(
                    Response(status: status), to: request.incoming(), startTime: request.startTime,
                    requestID: request.requestID)
            }
        }
        registry.withLock { registry in
            registry.handlers[request.identifier] = nil
            registry.liveRequests -= 1
        }
        let (task, unsent) = request.shared.withLock { shared -> (Task<Void, Never>?, Response?) in
            shared.completed = true
            shared.parked = false
            defer {
                shared.response = nil
                shared.handlerTask = nil
            }
            return (shared.handlerTask, shared.response)
        }
        task?.cancel()
        // A response never sent (the connection ended first): a stream's producer must hear of it.
        if case .stream(let stream) = unsent?.body { stream.finish() }
        deadlines?.forget(request)
        if reason == .REQUEST_TERMINATED_COMPLETED_OK {
            // Kept alive: the next request head has the idle timeout to arrive.
            enter(.head, request.peer, timeout: configuration.idleTimeout)
        }
        if reason != .REQUEST_TERMINATED_COMPLETED_OK && !request.detached && logger.isEnabled(.debug) {
            logger.debug(
                "connection ended early",
                metadata: ["reason": String(reason.rawValue), "request_id": request.requestID])
        }
    }

    // MARK: Suspend and resume

    /// MHD_suspend_connection, recorded. On the connection's thread, inside the lock of
    /// whoever will later call `resume` (so the resume cannot come first).
    func suspend(_ connection: ConnectionHandle) {
        MHD_suspend_connection(connection.pointer)
        suspensions.withLock { _ = $0.parked.insert(connection) }
    }

    /// MHD_resume_connection if the connection is suspended by us and not yet resumed.
    /// Any thread.
    func resume(_ connection: ConnectionHandle) {
        let suspended = suspensions.withLock { suspensions -> Bool in
            guard suspensions.parked.remove(connection) != nil else { return false }
            suspensions.resumesInFlight += 1
            return true
        }
        guard suspended else { return }
        MHD_resume_connection(connection.pointer)
        suspensions.withLock { $0.resumesInFlight -= 1 }
    }

    /// Before MHD_stop_daemon: waits (bounded) for the resumes that handlers have been asked
    /// for, then resumes any straggler itself.
    func resumeEverything(waitingUpTo limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let settled = suspensions.withLock { $0.parked.isEmpty && $0.resumesInFlight == 0 }
            if settled { return }
            usleep(1_000)
        }
        let stragglers = suspensions.withLock { $0.parked }
        if !stragglers.isEmpty {
            logger.warning("resuming suspended connections at shutdown", metadata: ["count": String(stragglers.count)])
        }
        for connection in stragglers {
            resume(connection)
        }
        while suspensions.withLock({ $0.resumesInFlight }) > 0 {
            sched_yield()
        }
    }

    // MARK: Shutdown

    func beginStopping() {
        registry.withLock { $0.stopping = true }
    }

    var handlersInFlight: Int { registry.withLock { $0.handlers.count } }
    var openStreams: Int { sockets.count }
    /// The library's connections and the open streams (what the connection limit counts).
    var openConnections: Int { sockets.connections.load(ordering: .relaxed) }
    var liveRequests: Int { registry.withLock { $0.liveRequests } }

    /// Answers every still-running handler with 503 and cancels it.
    func forceCompleteHandlers() {
        let pending = registry.withLock { Array($0.handlers.values) }
        for request in pending {
            let task = request.shared.withLock { $0.handlerTask }
            let unavailable = HTTPError(503, code: "shutting_down", message: "The server is shutting down.").response
            if complete(request, with: unavailable, requestID: request.requestID) {
                task?.cancel()
            }
        }
    }

    /// Finishes every open stream (their clients see the end of the response).
    func finishStreams() {
        sockets.finishAll()
    }

    // MARK: Logging

    /// libmicrohttpd reports routine closes ("Closing connection …") through the same
    /// channel as real problems; those go to debug.
    func logLibraryMessage(_ message: String) {
        // "Application reported internal error" follows every `.NO` of ours: each stream that
        // leaves the library (``detach``) and each refusal we log ourselves.
        let routine =
            message.hasPrefix("Closing connection")
            || message.hasPrefix("Application reported internal error, closing connection")
        var level: Logger.Level = routine ? .debug : .warning
        if let status = LibraryAnswers.status(inMessage: message) {
            // A client's bad request, answered by the library: the access log shows the answer.
            libraryAnswers.logged(status)
            level = .debug
        }
        logger.log(level: level, "libmicrohttpd: \(message)")
    }
}

// MARK: Value iterators

private func collectHeader(
    _ closure: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let closure, let key else { return .YES }
    let headers = closure.assumingMemoryBound(to: HTTPHeaders.self)
    headers.pointee.add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}

/// Arguments arrive still percent-encoded (the daemon's unescaper is the identity), so
/// they are decoded exactly like the in-process client decodes them.
private func collectQueryArgument(
    _ closure: UnsafeMutableRawPointer?,
    _ kind: MHD_ValueKind,
    _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let closure, let key, key.pointee != 0 else { return .YES }
    let query = closure.assumingMemoryBound(to: [String: String].self)
    URLDecoding.addQueryValue(
        &query.pointee, rawName: String(cString: key), rawValue: value.map { String(cString: $0) } ?? "")
    return .YES
}
