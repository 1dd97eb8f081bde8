import HeraldLog

/// Where and how an ``HTTP2Server`` listens, and the faults it shows every connection.
public struct HTTP2ServerConfiguration: Sendable {
    /// A local address or name; loopback by default.
    public var host: String
    /// 0 picks a free port; ``HTTP2Server/port`` tells which.
    public var port: Int
    /// TLS with ALPN `h2` (or `http/1.1`) when set, cleartext on the same port too; otherwise
    /// cleartext only: HTTP/2 with prior knowledge (h2c) or HTTP/1.1.
    public var tls: TLSIdentity?
    /// Event-loop threads; connections are spread over them.
    public var eventLoops: Int
    /// Announced in SETTINGS; APNs announces 1,000. nghttp2 refuses the streams a client opens
    /// beyond it (RST_STREAM REFUSED_STREAM).
    public var maxConcurrentStreams: UInt32
    /// How long ``HTTP2Server/stop()`` lets open streams finish after its GOAWAY.
    public var shutdownGrace: Duration
    /// The application's logger: connections that could not be set up, TLS handshakes that
    /// failed, clients that broke the protocol, answers that could not be sent.
    public var logger: Logger
    /// The faults of every connection; none by default.
    public var faults: HTTP2ServerFaults
    /// A request body over this many bytes is answered 413 without reaching the handler (an
    /// HTTP/1.1 connection then closes). 4 MiB by default: Expo's 100 messages of 4 KiB fit many
    /// times over, gzip-compressed or not.
    public var maxRequestBodyBytes: Int

    /// The default of ``maxRequestBodyBytes``.
    public static let defaultMaxRequestBodyBytes = 4 * 1024 * 1024

    public init(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSIdentity? = nil, eventLoops: Int = 2,
        maxConcurrentStreams: UInt32 = 1000, shutdownGrace: Duration = .seconds(5), logger: Logger = .disabled,
        faults: HTTP2ServerFaults = HTTP2ServerFaults(), maxRequestBodyBytes: Int = defaultMaxRequestBodyBytes
    ) {
        precondition(eventLoops > 0, "an HTTP/2 server needs at least one event loop")
        precondition(maxRequestBodyBytes > 0, "a request body limit is at least one byte")
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.host = host
        self.port = port
        self.tls = tls
        self.eventLoops = eventLoops
        self.maxConcurrentStreams = maxConcurrentStreams
        self.shutdownGrace = shutdownGrace
        self.logger = logger
        self.faults = faults
    }
}

/// How an ``HTTP2Server`` misbehaves on every connection, as servers a client meets do: the
/// transport tests' servers. A handler's own faults are answers (``HTTP2Response/dropConnection``,
/// ``HTTP2Response/resetStream(_:)``); the server's are ``HTTP2Server/goAway(errorCode:)``,
/// ``HTTP2Server/dropConnections()``, ``HTTP2Server/responseDelay`` and ``HTTP2Server/kill()``.
public struct HTTP2ServerFaults: Sendable, Equatable {
    /// Each connection takes this many requests, then sends GOAWAY (NO_ERROR) naming the last
    /// of them and refuses the streams after it (RST_STREAM REFUSED_STREAM, if they arrive before
    /// the GOAWAY is out); 0 sends GOAWAY with the SETTINGS, before any request. Nil: no limit.
    public var goAwayAfterRequests: Int?
    /// Each request is answered as soon as its HEADERS arrive, before its body, which the
    /// handler does not get (its `body` is empty) and which is read and dropped: a server
    /// answering a POST with a static file.
    public var answersBeforeBody: Bool
    /// Over TLS, the handshake never selects `h2` (only `http/1.1`, when the client offers it), and
    /// the connection speaks HTTP/1.1: a server that does not speak HTTP/2 there. h2c on the same
    /// port is unchanged. These faults shape HTTP/2 connections only; ``goAwayAfterRequests`` and
    /// ``answersBeforeBody`` do nothing to HTTP/1.1.
    public var refusesH2InALPN: Bool

    public init(goAwayAfterRequests: Int? = nil, answersBeforeBody: Bool = false, refusesH2InALPN: Bool = false) {
        precondition(goAwayAfterRequests.map { $0 >= 0 } ?? true, "a connection takes at least 0 requests")
        self.goAwayAfterRequests = goAwayAfterRequests
        self.answersBeforeBody = answersBeforeBody
        self.refusesH2InALPN = refusesH2InALPN
    }
}
