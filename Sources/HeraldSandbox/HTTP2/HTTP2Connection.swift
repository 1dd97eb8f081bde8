import FoundationEssentials
import HeraldHTTP2
import HeraldLog

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted connection, confined to its event loop's thread: bytes from the socket (through
/// TLS when configured) into its HTTP/2 session, frames from the session back out, complete
/// requests to the handler.
///
/// A server with TLS also takes cleartext on the same port: the first byte a client sends tells
/// which (22, a TLS handshake record, or anything else). Each speaks HTTP/2 or HTTP/1.1: over TLS
/// as ALPN agreed (`h2` or `http/1.1`); in cleartext, or over TLS without ALPN, by the first bytes
/// (the h2 preface, else HTTP/1.1). ``HTTP1Exchange`` parses HTTP/1.1.
final class HTTP2Connection: SessionDelegate {
    let id: UInt64
    /// The socket, its TLS stream once the first byte asked for one, and the session.
    private let io: ConnectionIO
    /// Whether the first byte has shown TLS or cleartext (always true on an h2c-only server).
    private var transportKnown: Bool
    /// The protocol, once TLS's ALPN or the first cleartext bytes told it.
    private var mode: Mode = .undecided([])
    private let session: Session
    private let server: ServerContext
    private let loop: ServerLoop
    private var streams: [Int32: HTTP2Stream] = [:]
    /// The socket (or TLS) wants to be writable before anything moves.
    private(set) var waitsForWritable = false
    /// Nothing more to do: the loop closes the connection.
    private(set) var isFinished = false
    /// Set once the session ended gracefully: our side is shut (FIN sent), and what the client
    /// still sends is read and dropped until it closes too, or until this instant.
    private(set) var lingersUntil: ContinuousClock.Instant?
    /// Requests begun, for ``HTTP2ServerFaults/goAwayAfterRequests``.
    private var requestsBegun = 0
    /// Set once that fault's GOAWAY is queued: the last stream taken; later ones are refused.
    private var lastStreamTaken: Int32?

    /// How long a gracefully closed connection waits for the client to close its side.
    static let lingerTime: Duration = .seconds(2)

    private enum Mode {
        /// Cleartext bytes read so far, all of them a prefix of the h2 preface.
        case undecided([UInt8])
        case http2
        case http1(HTTP1Exchange)
    }

    /// The HTTP/1.1 request being answered: its number (the "stream" its answer comes back on),
    /// method, minor version and whether the connection closes after it.
    private var http1InFlight: (number: Int32, method: String, minorVersion: Int, closes: Bool)?
    private var http1Requests: Int32 = 0
    /// ``serveHTTP1()`` is running: an answer made at once lets its loop go on, rather than
    /// calling it again (pipelined requests would otherwise nest one call each).
    private var servingHTTP1 = false
    /// An HTTP/1.1 connection closes once its queued bytes are written.
    private var closesAfterFlush = false

    /// The client connection preface of HTTP/2 (RFC 9113 §3.4).
    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Takes over the accepted socket `io` (closed with it).
    init(id: UInt64, io: ConnectionIO, server: ServerContext, loop: ServerLoop) throws(HTTP2ServerError) {
        self.id = id
        self.io = io
        self.server = server
        self.loop = loop
        transportKnown = server.tls == nil
        session = try Session(
            .server(maxConcurrentStreams: server.configuration.maxConcurrentStreams), throwing: HTTP2ServerError.self)
        session.delegate = self
        if server.configuration.faults.goAwayAfterRequests == 0 { goAwayAfterLastRequest(streamID: 0) }
    }

    deinit {
        session.delegate = nil
    }

    var fd: Int32 { io.fd }

    // MARK: Socket events

    /// Reads everything available into the session, then writes what it has to say.
    func pump(buffer: UnsafeMutableRawBufferPointer) {
        if lingersUntil != nil {
            drain(buffer)
            return
        }
        if !transportKnown, !chooseTransport() { return }
        if let tls = io.tls, !tls.isEstablished {
            switch tls.handshake() {
            case .done: break
            case .wantsReadable:
                waitsForWritable = false
                return
            case .wantsWritable:
                waitsForWritable = true
                return
            case .untrusted, .failed:
                server.configuration.logger.debug("sandbox: a TLS handshake failed; the connection closes")
                isFinished = true
                return
            }
        }
        if case .undecided([]) = mode, let tls = io.tls {
            // Without ALPN (a client that set none, as aioapns with its own SSL context), the
            // first bytes tell, as in cleartext.
            switch tls.negotiatedProtocol {
            case "h2"?: startHTTP2()
            // A server refusing h2 speaks HTTP/1.1 even to a client that sends the h2 preface.
            case nil where !server.configuration.faults.refusesH2InALPN: break
            default: startHTTP1()
            }
        }
        guard case .http2 = mode else {
            pumpBytes(buffer: buffer)
            return
        }
        reading: while !isFinished {
            switch io.receive(into: buffer, throwing: HTTP2ServerError.self) {
            case .received: continue
            case .broken:
                // A broken protocol (an HTTP/1 client, say): send the GOAWAY nghttp2 queued, then close.
                server.configuration.logger.debug("sandbox: a client broke the HTTP/2 protocol; GOAWAY, then close")
                flush()
                isFinished = true
            case .wantsReadable, .wantsWritable: break reading
            case .ended: isFinished = true
            }
        }
        flush()
    }

    /// Starts TLS when the first byte waiting is a TLS handshake record; false while no byte has
    /// come yet or when the connection is over.
    private func chooseTransport() -> Bool {
        /// The content type of a TLS handshake record (RFC 8446 §5.1).
        let handshakeRecord: UInt8 = 22
        switch SocketIO.peekFirstByte(fd) {
        case (.transferred, let byte):
            transportKnown = true
            guard byte == handshakeRecord, let context = server.tls else { return true }
            do {
                io.tls = try TLSStream(server: context, fd: fd, throwing: HTTP2ServerError.self)
                return true
            } catch {
                server.configuration.logger.debug("sandbox: TLS setup failed", metadata: ["error": "\(error)"])
                isFinished = true
                return false
            }
        case (.closed, _), (.failed, _):
            isFinished = true
            return false
        case (.wantsReadable, _), (.wantsWritable, _):
            return false
        }
    }

    /// Reads cleartext bytes whose protocol is not known yet, and HTTP/1.1.
    private func pumpBytes(buffer: UnsafeMutableRawBufferPointer) {
        reading: while !isFinished, !closesAfterFlush {
            switch io.read(into: buffer) {
            case .transferred(let count):
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                switch mode {
                case .undecided(let sniffed): sniff(sniffed + bytes)
                case .http1(let exchange):
                    exchange.append(bytes)
                    guard http1InFlight == nil || exchange.unparsedCount <= exchange.maxUnparsedBytes else {
                        // More pipelined than one whole request while one is answered: dropped.
                        server.configuration.logger.debug(
                            "sandbox: an HTTP/1.1 client sent too much before reading its answer; the connection closes"
                        )
                        resetOnClose()
                        break reading
                    }
                    serveHTTP1()
                case .http2: break reading
                }
                if case .http2 = mode {
                    // The preface came: what follows goes through the session.
                    pump(buffer: buffer)
                    return
                }
            case .wantsReadable, .wantsWritable: break reading
            case .closed, .failed: isFinished = true
            }
        }
        flush()
    }

    /// Decides h2c or HTTP/1.1 from the first cleartext bytes: the whole h2 preface, or a byte
    /// that departs from it.
    private func sniff(_ bytes: [UInt8]) {
        let compared = min(bytes.count, Self.preface.count)
        if !bytes[..<compared].elementsEqual(Self.preface[..<compared]) {
            startHTTP1(bytes)
            return
        }
        guard bytes.count >= Self.preface.count else {
            mode = .undecided(bytes)
            return
        }
        startHTTP2()
        do {
            try bytes.withUnsafeBytes { try session.receive($0, throwing: HTTP2ServerError.self) }
        } catch {
            server.configuration.logger.debug("sandbox: a client broke the HTTP/2 protocol; GOAWAY, then close")
            flush()
            isFinished = true
        }
    }

    private func startHTTP2() {
        mode = .http2
        io.session = session
    }

    private func startHTTP1(_ bytes: [UInt8] = []) {
        let exchange = HTTP1Exchange(maxBodyBytes: server.configuration.maxRequestBodyBytes)
        exchange.append(bytes)
        mode = .http1(exchange)
        serveHTTP1()
    }

    /// Answers the next whole HTTP/1.1 request, unless one is being answered.
    private func serveHTTP1() {
        guard case .http1(let exchange) = mode, !servingHTTP1 else { return }
        servingHTTP1 = true
        defer { servingHTTP1 = false }
        while http1InFlight == nil, !closesAfterFlush, !isFinished {
            let step: HTTP1Exchange.Step
            do {
                step = try exchange.next()
            } catch {
                server.configuration.logger.debug(
                    "sandbox: an HTTP/1.1 request was refused", metadata: ["status": "\(error.status)"])
                io.queue(HTTP1Exchange.serialize(HTTP1Exchange.refusalResponse(error), method: "", closing: true))
                closesAfterFlush = true
                return
            }
            switch step {
            case .needMore: return
            case .sendContinue: io.queue("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            case .request(let head, let body):
                http1Requests &+= 1
                let number = http1Requests
                http1InFlight = (number, head.method, head.minorVersion, !head.keepsAlive)
                var request = HTTP2Request(
                    method: head.method, path: head.target, authority: head.headers.first(named: "host") ?? "",
                    scheme: io.tls == nil ? "http" : "https",
                    headers: head.headers.filter { !Self.hopByHop.contains($0.lowercasedName) }, body: body,
                    connectionID: id, version: .http1)
                if let url = URLComponents(string: head.target), let host = url.host, url.scheme != nil {
                    // The absolute form (RFC 9112 §3.2.2): the target's authority wins over Host.
                    request.authority = url.port.map { "\(host):\($0)" } ?? host
                    request.path =
                        (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
                        + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
                }
                if let response = server.dispatch(request, streamID: number, loop: loop) {
                    answerHTTP1(number, response)
                }
            }
        }
    }

    /// Fields that describe one HTTP/1.1 hop, not the request: left out of what the handler gets,
    /// as HTTP/2 has none of them (`host` is the authority).
    private static let hopByHop: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "expect",
    ]

    /// Queues the answer to HTTP/1.1 request `number`; a handler's fault resets the connection
    /// (HTTP/1.1 has no stream to reset).
    private func answerHTTP1(_ number: Int32, _ response: HTTP2Response) {
        guard let inFlight = http1InFlight, inFlight.number == number, !isFinished else {
            response.whenUnanswered?()
            return
        }
        http1InFlight = nil
        if response.fault != nil {
            resetOnClose()
            return
        }
        io.queue(
            HTTP1Exchange.serialize(
                response, method: inFlight.method, closing: inFlight.closes, minorVersion: inFlight.minorVersion))
        if inFlight.closes { closesAfterFlush = true }
        serveHTTP1()
    }

    /// Writes pending frames until the socket pushes back or the session has nothing more.
    func flush() {
        guard !isFinished, lingersUntil == nil, transportKnown, io.tls?.isEstablished ?? true else { return }
        switch io.flush(throwing: HTTP2ServerError.self) {
        case .done: break
        case .blocked:
            waitsForWritable = true
            return
        case .sessionFailed, .socketFailed:
            isFinished = true
            return
        }
        waitsForWritable = false
        switch mode {
        case .http2: if !session.isActive { closeGracefully() }
        case .http1, .undecided: if closesAfterFlush { closeGracefully() }
        }
    }

    /// The session is over and everything it said is written: shut our side and linger.
    ///
    /// Closing at once would be a TCP reset whenever the client's last frames (a WINDOW_UPDATE,
    /// a request it sent before reading the GOAWAY) are still unread here, and a reset makes the
    /// client's kernel throw away answers the client had not read yet: streams the sandbox
    /// answered would fail and be sent again.
    private func closeGracefully() {
        io.tls?.closeNotify()
        shutdown(fd, Int32(SHUT_WR))
        waitsForWritable = false
        lingersUntil = .now + Self.lingerTime
    }

    /// Reads and drops what a lingering connection's client still sends, until it closes.
    private func drain(_ buffer: UnsafeMutableRawBufferPointer) {
        while true {
            switch SocketIO.receive(fd, into: buffer) {
            case .transferred: continue
            case .wantsReadable, .wantsWritable: return
            case .closed, .failed:
                isFinished = true
                return
            }
        }
    }

    /// Ends a lingering connection whose client did not close in time.
    func lingerExpired(at now: ContinuousClock.Instant) {
        if let lingersUntil, now >= lingersUntil { isFinished = true }
    }

    // MARK: Faults and shutdown

    /// Sends GOAWAY naming the last stream the client opened (see
    /// ``Session/goAway(code:lastStreamID:throwing:)``).
    func goAway(_ code: HTTP2ErrorCode) {
        guard case .http2 = mode else {
            // HTTP/1.1: close once the request being answered (if any) has its answer.
            if let inFlight = http1InFlight {
                http1InFlight = (inFlight.number, inFlight.method, inFlight.minorVersion, true)
            } else {
                closesAfterFlush = true
            }
            flush()
            return
        }
        queueGoAway(code, lastStreamID: nil)
        flush()
    }

    /// Queues the GOAWAY of ``HTTP2ServerFaults/goAwayAfterRequests`` naming `streamID`, the last
    /// stream taken (written by the flush under way: this runs in session callbacks too).
    private func goAwayAfterLastRequest(streamID: Int32) {
        lastStreamTaken = streamID
        queueGoAway(.noError, lastStreamID: streamID)
    }

    private func queueGoAway(_ code: HTTP2ErrorCode, lastStreamID: Int32?) {
        do {
            try session.goAway(code: code.rawValue, lastStreamID: lastStreamID, throwing: HTTP2ServerError.self)
        } catch {
            server.configuration.logger.debug("sandbox: GOAWAY could not be sent", metadata: ["error": "\(error)"])
            isFinished = true
        }
    }

    /// Makes the coming close a TCP reset: no GOAWAY, no FIN.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        isFinished = true
    }

    // MARK: Session callbacks

    func sessionBeganRequest(streamID: Int32) {
        if let last = lastStreamTaken, streamID > last {
            // Opened before the client read the GOAWAY: never taken, so safe to send again.
            session.reset(streamID: streamID, code: HTTP2ErrorCode.refusedStream.rawValue)
            return
        }
        streams[streamID] = HTTP2Stream()
        requestsBegun += 1
        if requestsBegun == server.configuration.faults.goAwayAfterRequests {
            goAwayAfterLastRequest(streamID: streamID)
        }
    }

    func sessionReceivedHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        switch name {
        case ":method": stream.method = value
        case ":path": stream.path = value
        case ":authority": stream.authority = value
        case ":scheme": stream.scheme = value
        default: stream.headers.append(HTTP2Header(name, value))
        }
    }

    func sessionReceivedData(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.dispatched, !stream.bodyTooLarge else { return }
        guard stream.body.count + bytes.count <= server.configuration.maxRequestBodyBytes else {
            stream.bodyTooLarge = true
            stream.body = []
            return
        }
        stream.body.append(contentsOf: bytes)
    }

    func sessionReceived(_ frame: ReceivedFrame) {
        switch frame {
        case .requestHeaders(let streamID):
            if server.configuration.faults.answersBeforeBody { dispatch(streamID: streamID) }
        case .endOfStream(let streamID): dispatch(streamID: streamID)
        case .reset: server.resetsReceived.add(1, ordering: .relaxed)
        case .goAway: server.goAwaysReceived.add(1, ordering: .relaxed)
        case .settings: break
        }
    }

    /// The request on `streamID` is whole (or, answering before the body, its head is): hand it
    /// to the handler, once. An answer ready at once is submitted now (and written by the `pump`
    /// under way); a later one comes back through the loop to ``respond(streamID:with:)``.
    private func dispatch(streamID: Int32) {
        guard let stream = streams[streamID], !stream.dispatched else { return }
        stream.dispatched = true
        if stream.bodyTooLarge {
            let limit = server.configuration.maxRequestBodyBytes
            submit(streamID: streamID, .json(413, ["error": "the request body is over \(limit) bytes"]))
            return
        }
        let request = HTTP2Request(
            method: stream.method, path: stream.path, authority: stream.authority, scheme: stream.scheme,
            headers: stream.headers, body: stream.body, connectionID: id)
        stream.body = []
        if let response = server.dispatch(request, streamID: streamID, loop: loop) {
            submit(streamID: streamID, response)
        }
    }

    func sessionClosedStream(_ streamID: Int32, code: UInt32) {
        streams[streamID] = nil
    }

    func sessionReadBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (
        count: Int, finished: Bool
    ) {
        guard let stream = streams[streamID] else { return (0, true) }
        return stream.response.read(into: buffer)
    }

    // MARK: Answers

    /// Submits the handler's later answer and writes it.
    func respond(streamID: Int32, with response: HTTP2Response) {
        if case .http1 = mode {
            answerHTTP1(streamID, response)
        } else {
            submit(streamID: streamID, response)
        }
        flush()
    }

    /// Submits an answer without writing it (session callbacks may not write), unless the client
    /// reset the stream meanwhile (then tells the response it went unanswered).
    private func submit(streamID: Int32, _ response: HTTP2Response) {
        guard let stream = streams[streamID], !isFinished else {
            response.whenUnanswered?()
            return
        }
        switch response.fault {
        case .dropConnection?:
            resetOnClose()
            return
        case .resetStream(let code)?:
            session.reset(streamID: streamID, code: code.rawValue)
            return
        case nil: break
        }
        stream.response = OutgoingBody(response.body)
        var block = HeaderBlock(capacity: response.headers.count + 1)
        block.append(":status", String(response.status))
        for field in response.headers { block.append(field.lowercasedName, field.value) }
        do {
            try session.submitResponse(
                streamID: streamID, block, hasBody: !response.body.isEmpty, throwing: HTTP2ServerError.self)
        } catch {
            server.configuration.logger.warning(
                "sandbox: an answer could not be sent; the connection closes",
                metadata: ["status": String(response.status), "error": "\(error)"])
            isFinished = true
            response.whenUnanswered?()
        }
    }
}
