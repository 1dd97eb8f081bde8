import CNGHTTP2
import HeraldHTTP2
import HeraldLog

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to an origin, confined to the loop's thread: a non-blocking connect through
/// the origin's addresses, the TLS handshake (or h2c), then frames between the socket and its
/// nghttp2 session, each stream's response back to its request.
///
/// Session callbacks only record what happened; the connection is closed outside them.
final class ClientConnection: SessionDelegate {
    enum State { case resolving, connecting, handshaking, open, closed }

    let id: UInt64
    let origin: Origin
    private unowned let loop: ClientLoop
    private unowned let pool: OriginPool
    private(set) var state = State.resolving
    /// The socket being connected, then the connection's TLS and session over it.
    private var io: ConnectionIO?
    /// Connecting (the lookup included) and the TLS handshake must end by then.
    let setupDeadline: ContinuousClock.Instant
    private var addresses: [SocketAddress] = []
    private var nextAddress = 0
    /// `errno` of the last failed connect.
    private var connectError: Int32 = ECONNREFUSED
    /// The requests on this connection's streams, by stream id (until nghttp2 closes the stream).
    private var streams: [Int32: PendingRequest] = [:]
    /// The server's first SETTINGS arrived, with its stream limit: until then the connection
    /// takes one stream (a server may refuse more than its limit, which nghttp2 does not know yet).
    private var serverSettingsReceived = false
    /// GOAWAY arrived (or the session broke): no new streams.
    private(set) var goingAway = false
    private var goAwayCode: UInt32 = 0
    private var goAwayLastStreamID: Int32 = 0
    private var watchingWritable = false
    private var watching = false
    /// Queued for a write at the end of the loop's turn.
    var isDirty = false

    init(id: UInt64, origin: Origin, loop: ClientLoop, pool: OriginPool) {
        self.id = id
        self.origin = origin
        self.loop = loop
        self.pool = pool
        setupDeadline = .now + loop.configuration.connectTimeout
    }

    /// The socket, -1 when there is none.
    var fd: Int32 { io?.fd ?? -1 }

    /// Whether it will take streams (open, or still being set up) rather than being done.
    var isUsable: Bool { state != .closed && !goingAway }

    /// Streams it can take now.
    var freeSlots: Int {
        guard state == .open, !goingAway, let session = io?.session else { return 0 }
        guard serverSettingsReceived else { return streams.isEmpty ? 1 : 0 }
        return max(0, min(loop.configuration.maxConcurrentStreams, session.peerStreamLimit) - streams.count)
    }

    /// Still being set up, or waiting for the server's SETTINGS: it will take more streams soon.
    var awaitsServerLimit: Bool { isUsable && !serverSettingsReceived }

    // MARK: Setting up

    func addressesResolved(_ result: Result<[SocketAddress], HTTP2ClientError>) {
        guard state == .resolving else { return }
        switch result {
        case .success(let found):
            addresses = found
            connectNext()
        case .failure(let error): failSetup(error)
        }
    }

    /// Connects to the next address; the last failure when none is left.
    private func connectNext() {
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            let socketFD = socket(
                address.family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                    | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socketFD >= 0 else {
                connectError = errno
                continue
            }
            configure(socketFD)
            let result = address.connect(socketFD)
            if result == 0 || result == EINPROGRESS {
                io = ConnectionIO(fd: socketFD)
                state = .connecting
                watch(writable: true)
                if result == 0 { connected() }
                return
            }
            connectError = result
            Glibc.close(socketFD)
        }
        failSetup(
            HTTP2ClientError(
                kind: .connectionRefused, code: Int(connectError), library: "system",
                message:
                    "Failed to connect to \(origin.host) port \(origin.port): \(String(cString: strerror(connectError)))"
            ))
    }

    private func configure(_ socketFD: Int32) {
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        _ = setsockopt(socketFD, SOL_SOCKET, SO_KEEPALIVE, &on, size)
        var idle = Int32(max(1, loop.configuration.keepAliveIdle.components.seconds))
        _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
    }

    private func connected() {
        loop.connectionOpened()
        guard origin.secure else { return startSession() }
        do throws(HTTP2ClientError) {
            guard let context = loop.context, let io else { throw HTTP2ClientError.shutDown }
            if let trustError = loop.trustError { throw trustError }
            io.tls = try TLSStream(
                client: context, fd: io.fd, host: origin.host, counter: loop.handles, throwing: HTTP2ClientError.self)
        } catch {
            return failSetup(error)
        }
        state = .handshaking
        continueHandshake()
    }

    /// Advances the handshake; once done, the server must have chosen `h2`. An untrusted peer
    /// fails as `.certificate`, a server without HTTP/2 as `.other`, anything else as `.tlsHandshake`.
    private func continueHandshake() {
        guard let tls = io?.tls else { return }
        switch tls.handshake() {
        case .done:
            guard tls.choseHTTP2 else {
                return failSetup(
                    HTTP2ClientError(
                        kind: .other, code: 0, library: "OpenSSL",
                        message:
                            "\(origin.host) port \(origin.port) did not choose HTTP/2 (ALPN h2) in the TLS handshake"))
            }
            startSession()
        case .wantsWritable: watch(writable: true)
        case .wantsReadable: watch(writable: false)
        case .untrusted(let code, let reason):
            failSetup(
                HTTP2ClientError(
                    kind: .certificate, code: code, library: "OpenSSL", message: "SSL certificate problem: \(reason)"))
        case .failed(let failure):
            guard failure.code == 0 else { return failSetup(HTTP2ClientError(failure, kind: .tlsHandshake)) }
            failSetup(
                HTTP2ClientError(
                    kind: .tlsHandshake, code: 0, library: "OpenSSL",
                    message: "the TLS handshake with \(origin.host) port \(origin.port) broke off (connection closed)"))
        }
    }

    private func startSession() {
        guard let io else { return }
        do {
            let session = try Session(.client, counter: loop.handles, throwing: HTTP2ClientError.self)
            session.delegate = self
            io.session = session
        } catch {
            return failSetup(error)
        }
        state = .open
        watch(writable: false)
        loop.markDirty(self)
        pool.markDirty()
        // The handshake may have read the server's first frames into OpenSSL's buffer already.
        if io.tls != nil { readAll() }
    }

    /// Setting up failed: the pool decides what its waiting requests do.
    func failSetup(_ error: HTTP2ClientError) {
        guard state != .closed else { return }
        if error.kind != .closed {
            // A certificate nobody trusts or a server without HTTP/2 is a setting to fix.
            loop.configuration.logger.log(
                level: error.isRetryable ? .warning : .error, "push client: could not connect",
                metadata: metadata(error))
        }
        close()
        pool.connectionFailed(self, error)
    }

    /// The origin and `error`, for the log.
    private func metadata(_ error: HTTP2ClientError) -> [String: String] {
        ["host": origin.host, "port": String(origin.port), "kind": "\(error.kind)", "error": error.message]
    }

    // MARK: Socket events

    func handle(events: UInt32) {
        switch state {
        case .resolving, .closed: return
        case .connecting:
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
            guard error == 0 else {
                connectError = error
                loop.unwatch(self)
                watching = false
                io = nil
                return connectNext()
            }
            connected()
        case .handshaking: continueHandshake()
        case .open:
            // A TLS read may have waited for the socket to take a write.
            let readable =
                EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue | (io?.tls != nil ? EPOLLOUT.rawValue : 0)
            if events & readable != 0 { readAll() }
            if state == .open { loop.markDirty(self) }
        }
    }

    /// Reads everything available into the session.
    private func readAll() {
        guard let io else { return }
        let buffer = loop.readBuffer
        while state == .open {
            switch io.receive(into: buffer, throwing: HTTP2ClientError.self) {
            case .received: continue
            case .broken(let error):
                // The server broke HTTP/2: nghttp2 queued GOAWAY; send it, then give up.
                flush()
                return lose(
                    HTTP2ClientError(
                        kind: .goaway, code: error.code, library: "nghttp2",
                        message: "the server broke HTTP/2: \(error.message)"))
            case .wantsReadable: return
            case .wantsWritable: return watch(writable: true)
            case .ended:
                return lose(
                    HTTP2ClientError(
                        kind: .connectionLost, code: 0, library: "Herald",
                        message: "the connection to \(origin.host) port \(origin.port) was closed by the server"))
            }
        }
    }

    /// Writes pending frames until the socket pushes back or the session has nothing more;
    /// closes the connection once the session is done.
    func flush() {
        guard state == .open, let io, let session = io.session else { return }
        switch io.flush(throwing: HTTP2ClientError.self) {
        case .done: break
        case .blocked(let wantsWritable): return watch(writable: wantsWritable)
        case .sessionFailed(let error):
            return lose(
                HTTP2ClientError(kind: .connectionLost, code: error.code, library: "nghttp2", message: error.message))
        case .socketFailed(let code):
            return lose(
                HTTP2ClientError(
                    kind: .connectionLost, code: Int(code), library: "system",
                    message: "the connection to \(origin.host) port \(origin.port) broke while sending"))
        }
        watch(writable: false)
        if !session.isActive || (goingAway && streams.isEmpty) { close() }
    }

    // MARK: Requests

    /// Opens a stream for `request`; fails the request when nghttp2 refuses it.
    func submit(_ request: PendingRequest) {
        guard let session = io?.session else { return loop.complete(request, .failure(HTTP2ClientError.shutDown)) }
        do {
            let streamID = try session.submitRequest(
                request.headerBlock, hasBody: !request.body.bytes.isEmpty, throwing: HTTP2ClientError.self)
            streams[streamID] = request
            request.phase = .streaming
            request.streamID = streamID
            request.connection = self
            loop.markDirty(self)
        } catch {
            loop.complete(request, .failure(error))
        }
    }

    /// Resets the stream of a request whose caller gave up (RST_STREAM CANCEL).
    func cancel(_ request: PendingRequest) {
        guard state == .open, let session = io?.session, streams[request.streamID] === request else { return }
        session.reset(streamID: request.streamID)
        loop.markDirty(self)
    }

    /// Fails every request on the connection with `error` and closes it.
    func lose(_ error: HTTP2ClientError) {
        guard state != .closed else { return }
        let failed = streams.values
        streams.removeAll()
        let inFlight = failed.count(where: { $0.phase == .streaming })
        if inFlight > 0 && error.kind != .closed {
            var metadata = metadata(error)
            metadata["requests"] = String(inFlight)
            loop.configuration.logger.warning(
                "push client: lost a connection with requests in flight", metadata: metadata)
        }
        for request in failed where request.phase == .streaming { loop.complete(request, .failure(error)) }
        close()
    }

    /// Frees the socket, the TLS object and the session, and leaves the pool; a request still on
    /// a stream (none, when the session ended cleanly) fails as lost.
    private func close() {
        guard state != .closed else { return }
        if !streams.isEmpty {
            return lose(
                HTTP2ClientError(
                    kind: .connectionLost, code: 0, library: "Herald",
                    message: "the connection to \(origin.host) port \(origin.port) closed with the stream open"))
        }
        state = .closed
        if watching { loop.unwatch(self) }
        watching = false
        io = nil
        pool.connectionClosed(self)
        loop.forget(self)
    }

    private func watch(writable: Bool) {
        if !watching {
            loop.watch(self, writable: writable, adding: true)
            watching = true
        } else if writable != watchingWritable {
            loop.watch(self, writable: writable, adding: false)
        }
        watchingWritable = writable
    }

    // MARK: Session callbacks

    func sessionReceivedHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let request = streams[streamID], request.phase == .streaming else { return }
        if name.elementsEqual(":status".utf8) {
            request.status = value.reduce(0) { $0 * 10 + Int($1 &- 0x30) }
            // A final response after an interim (1xx) one starts a new head.
            request.head.removeAll(keepingCapacity: true)
            return
        }
        request.head.append(contentsOf: name)
        request.head.append(UInt8(ascii: ":"))
        request.head.append(UInt8(ascii: " "))
        request.head.append(contentsOf: value)
        request.head.append(0x0D)
        request.head.append(0x0A)
    }

    func sessionReceivedData(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let request = streams[streamID], request.phase == .streaming else { return }
        request.responseBody.append(contentsOf: bytes)
    }

    func sessionReceived(_ frame: ReceivedFrame) {
        switch frame {
        case .endOfStream(let streamID): responseComplete(streamID: streamID)
        case .reset(let streamID, let code): streams[streamID]?.resetCode = code
        case .goAway(let lastStreamID, let code): serverWentAway(lastStreamID: lastStreamID, code: code)
        case .settings:
            serverSettingsReceived = true
            pool.markDirty()
        case .requestHeaders: break
        }
    }

    /// END_STREAM arrived: the response is whole, and its caller resumes now.
    private func responseComplete(streamID: Int32) {
        guard let request = streams[streamID], request.phase == .streaming, request.status >= 200 else { return }
        request.responseComplete = true
        loop.complete(request, .success(request.received))
    }

    private func serverWentAway(lastStreamID: Int32, code: UInt32) {
        loop.configuration.logger.log(
            level: code == NGHTTP2_NO_ERROR.rawValue ? .notice : .warning,
            "push client: the server sent GOAWAY; new requests go to another connection",
            metadata: [
                "host": origin.host, "port": String(origin.port), "code": String(cString: nghttp2_http2_strerror(code)),
                "last_stream": String(lastStreamID),
            ])
        goingAway = true
        goAwayCode = code
        goAwayLastStreamID = lastStreamID
        pool.markDirty()
        loop.markDirty(self)
    }

    /// nghttp2 closed the stream: the request fails unless its response was whole.
    func sessionClosedStream(_ streamID: Int32, code: UInt32) {
        guard let request = streams.removeValue(forKey: streamID) else { return }
        pool.markDirty()
        guard request.phase == .streaming, !request.responseComplete else { return }
        let name = String(cString: nghttp2_http2_strerror(code))
        let error: HTTP2ClientError
        if code == NGHTTP2_REFUSED_STREAM.rawValue && goingAway && request.resetCode == nil {
            error = HTTP2ClientError(
                kind: .goaway, code: Int(goAwayCode), library: "HTTP/2",
                message:
                    "the server sent GOAWAY (\(String(cString: nghttp2_http2_strerror(goAwayCode))), last stream "
                    + "\(goAwayLastStreamID)) before processing stream \(streamID)")
        } else if let reset = request.resetCode {
            error = HTTP2ClientError(
                kind: .streamReset, code: Int(reset), library: "HTTP/2",
                message: "the server reset stream \(streamID): \(String(cString: nghttp2_http2_strerror(reset)))")
        } else if code != NGHTTP2_NO_ERROR.rawValue {
            error = HTTP2ClientError(
                kind: goingAway ? .goaway : .streamReset, code: Int(code), library: "HTTP/2",
                message: "stream \(streamID) closed with \(name)")
        } else {
            error = HTTP2ClientError(
                kind: .connectionLost, code: 0, library: "HTTP/2",
                message: "stream \(streamID) closed before the response was complete")
        }
        loop.complete(request, .failure(error))
    }

    /// nghttp2 could not send a request's HEADERS (GOAWAY came first, most often).
    func sessionCouldNotSendHeaders(streamID: Int32, libraryError: Int32) {
        guard let request = streams.removeValue(forKey: streamID) else { return }
        pool.markDirty()
        guard request.phase == .streaming else { return }
        let kind: HTTP2ClientError.Kind =
            goingAway || libraryError == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue ? .goaway : .other
        loop.complete(
            request, .failure(HTTP2ClientError(.nghttp2(libraryError, "nghttp2_session_mem_send"), kind: kind)))
    }

    func sessionReadBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (
        count: Int, finished: Bool
    ) {
        guard let request = streams[streamID] else { return (0, true) }
        return request.body.read(into: buffer)
    }
}
