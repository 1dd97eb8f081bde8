import HeraldSocket

#if canImport(Glibc)
    import Glibc
#endif

/// One accepted connection, confined to its event loop's thread: bytes from the socket (through
/// TLS when configured) into its HTTP/2 session, frames from the session back out, complete
/// requests to the handler.
///
/// A server with TLS also takes cleartext HTTP/2 (h2c, prior knowledge) on the same port: the
/// first byte a client sends tells which (22, a TLS handshake record, or the `P` of the h2 preface).
final class HTTP2Connection {
    let id: UInt64
    let fd: Int32
    private var tls: TLSStream?
    /// Whether the first byte has shown TLS or cleartext (always true on an h2c-only server).
    private var transportKnown: Bool
    private let session: NGHTTP2Session
    private let server: ServerContext
    private let loop: EventLoop
    private var streams: [Int32: HTTP2Stream] = [:]
    /// Frames the socket did not take yet, from `outputStart` on.
    private var output: [UInt8] = []
    private var outputStart = 0
    /// The socket (or TLS) wants to be writable before anything moves.
    private(set) var waitsForWritable = false
    /// Nothing more to do: the loop closes the connection.
    private(set) var isFinished = false
    /// Set once the session ended gracefully: our side is shut (FIN sent), and what the client
    /// still sends is read and dropped until it closes too, or until this instant.
    private(set) var lingersUntil: ContinuousClock.Instant?

    /// How long a gracefully closed connection waits for the client to close its side.
    static let lingerTime: Duration = .seconds(2)

    /// Coalesce frames up to this much before writing.
    private static let writeBatch = 64 * 1024

    init(id: UInt64, fd: Int32, server: ServerContext, loop: EventLoop) throws(HTTP2ServerError) {
        self.id = id
        self.fd = fd
        self.server = server
        self.loop = loop
        transportKnown = server.tls == nil
        session = try NGHTTP2Session(maxConcurrentStreams: server.configuration.maxConcurrentStreams)
        session.attach(self)
    }

    deinit {
        session.detach()
        close(fd)
    }

    /// The connection named by a session's `user_data`.
    static func from(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection? {
        userData.map { Unmanaged<HTTP2Connection>.fromOpaque($0).takeUnretainedValue() }
    }

    // MARK: Socket events

    /// Reads everything available into the session, then writes what it has to say.
    func pump(buffer: UnsafeMutableRawBufferPointer) {
        if lingersUntil != nil {
            drain(buffer)
            return
        }
        if !transportKnown, !chooseTransport() { return }
        if let tls, !tls.isEstablished {
            switch tls.handshake() {
            case .transferred: break
            case .wantsReadable:
                waitsForWritable = false
                return
            case .wantsWritable:
                waitsForWritable = true
                return
            case .closed, .failed:
                isFinished = true
                return
            }
        }
        reading: while !isFinished {
            switch tls.map({ $0.read(into: buffer) }) ?? SocketIO.receive(fd, into: buffer) {
            case .transferred(let count):
                do {
                    try session.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                } catch {
                    // A broken protocol (an HTTP/1 client, say): send the GOAWAY nghttp2 queued, then close.
                    flush()
                    isFinished = true
                }
            case .wantsReadable, .wantsWritable: break reading
            case .closed, .failed: isFinished = true
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
                tls = try TLSStream(context: context, fd: fd)
                return true
            } catch {
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

    /// Writes pending frames until the socket pushes back or the session has nothing more.
    func flush() {
        guard !isFinished, lingersUntil == nil, transportKnown, tls?.isEstablished ?? true else { return }
        do {
            while true {
                if output.count - outputStart < Self.writeBatch {
                    let frames = try session.nextOutput()
                    if !frames.isEmpty {
                        output.append(contentsOf: frames)
                        continue
                    }
                }
                guard outputStart < output.count else { break }
                guard writePending() else { return }
            }
        } catch {
            isFinished = true
            return
        }
        waitsForWritable = false
        if !session.isActive { closeGracefully() }
    }

    /// The session is over and everything it said is written: shut our side and linger.
    ///
    /// Closing at once would be a TCP reset whenever the client's last frames (a WINDOW_UPDATE,
    /// a request it sent before reading the GOAWAY) are still unread here, and a reset makes the
    /// client's kernel throw away answers the client had not read yet: streams the sandbox
    /// answered would fail and be sent again.
    private func closeGracefully() {
        tls?.closeNotify()
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

    /// Writes from `output`; false when the socket took less than everything.
    private func writePending() -> Bool {
        let result = output.withUnsafeBytes { bytes in
            let pending = UnsafeRawBufferPointer(rebasing: bytes[outputStart...])
            return tls.map { $0.write(pending) } ?? SocketIO.send(fd, pending)
        }
        switch result {
        case .transferred(let count):
            outputStart += count
            if outputStart == output.count {
                output.removeAll(keepingCapacity: true)
                outputStart = 0
                return true
            }
            waitsForWritable = true
            return false
        case .wantsWritable, .wantsReadable:
            waitsForWritable = true
            return false
        case .closed, .failed:
            isFinished = true
            return false
        }
    }

    // MARK: Faults and shutdown

    /// Sends GOAWAY (see ``NGHTTP2Session/goAway(_:)``).
    func goAway(_ code: HTTP2ErrorCode) {
        do {
            try session.goAway(code)
        } catch {
            isFinished = true
        }
        flush()
    }

    /// Makes the coming close a TCP reset: no GOAWAY, no FIN.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        isFinished = true
    }

    // MARK: Session callbacks

    func beginStream(_ streamID: Int32) {
        streams[streamID] = HTTP2Stream()
    }

    func header(streamID: Int32, name: String, value: String) {
        guard let stream = streams[streamID] else { return }
        switch name {
        case ":method": stream.method = value
        case ":path": stream.path = value
        case ":authority": stream.authority = value
        case ":scheme": stream.scheme = value
        default: stream.headers.append(HTTP2Header(name, value))
        }
    }

    func bodyChunk(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        streams[streamID]?.body.append(contentsOf: bytes)
    }

    /// The request on `streamID` is whole: hand it to the handler. An answer ready at once is
    /// submitted now (and written by the `pump` under way); a later one comes back through the
    /// loop to ``respond(streamID:with:)``.
    func requestComplete(streamID: Int32) {
        guard let stream = streams[streamID] else { return }
        let request = HTTP2Request(
            method: stream.method, path: stream.path, authority: stream.authority, scheme: stream.scheme,
            headers: stream.headers, body: stream.body, connectionID: id)
        stream.body = []
        if let response = server.dispatch(request, streamID: streamID, loop: loop) {
            submit(streamID: streamID, response)
        }
    }

    /// A frame by which the client gave up on a stream or on the connection.
    enum PeerAbort { case reset, goAway }

    /// Counts a RST_STREAM or GOAWAY the client sent.
    func peerSent(resetOrGoAway frame: PeerAbort) {
        switch frame {
        case .reset: server.resetsReceived.add(1, ordering: .relaxed)
        case .goAway: server.goAwaysReceived.add(1, ordering: .relaxed)
        }
    }

    func streamClosed(_ streamID: Int32) {
        streams[streamID] = nil
    }

    func readBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, finished: Bool) {
        guard let stream = streams[streamID] else { return (0, true) }
        let count = min(buffer.count, stream.response.count - stream.responseSent)
        stream.response.withUnsafeBufferPointer { source in
            _ = buffer.initialize(fromContentsOf: source[stream.responseSent..<stream.responseSent + count])
        }
        stream.responseSent += count
        return (count, stream.responseSent == stream.response.count)
    }

    // MARK: Answers

    /// Submits the handler's later answer and writes it.
    func respond(streamID: Int32, with response: HTTP2Response) {
        submit(streamID: streamID, response)
        flush()
    }

    /// Submits an answer without writing it (session callbacks may not write), unless the client
    /// reset the stream meanwhile (then tells the response it went unanswered).
    private func submit(streamID: Int32, _ response: HTTP2Response) {
        guard let stream = streams[streamID], !isFinished else {
            response.whenUnanswered?()
            return
        }
        if response.dropsConnection {
            resetOnClose()
            return
        }
        stream.response = response.body
        let fields = [HTTP2Header(":status", String(response.status))] + response.headers
        do {
            try session.submitResponse(streamID: streamID, fields: fields, hasBody: !response.body.isEmpty)
        } catch {
            isFinished = true
            response.whenUnanswered?()
        }
    }
}
