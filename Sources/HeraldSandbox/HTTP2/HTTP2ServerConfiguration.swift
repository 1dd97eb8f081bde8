import HeraldLog

/// Where and how an ``HTTP2Server`` listens.
public struct HTTP2ServerConfiguration: Sendable {
    /// A local address or name; loopback by default.
    public var host: String
    /// 0 picks a free port; ``HTTP2Server/port`` tells which.
    public var port: Int
    /// TLS with ALPN `h2` when set; otherwise cleartext HTTP/2 with prior knowledge (h2c).
    public var tls: TLSIdentity?
    /// Event-loop threads; connections are spread over them.
    public var eventLoops: Int
    /// Announced in SETTINGS; APNs announces 1,000.
    public var maxConcurrentStreams: UInt32
    /// How long ``HTTP2Server/stop()`` lets open streams finish after its GOAWAY.
    public var shutdownGrace: Duration
    /// The application's logger: connections that could not be set up, TLS handshakes that
    /// failed, answers that could not be sent.
    public var logger: Logger

    public init(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSIdentity? = nil, eventLoops: Int = 2,
        maxConcurrentStreams: UInt32 = 1000, shutdownGrace: Duration = .seconds(5), logger: Logger = .disabled
    ) {
        precondition(eventLoops > 0, "an HTTP/2 server needs at least one event loop")
        self.host = host
        self.port = port
        self.tls = tls
        self.eventLoops = eventLoops
        self.maxConcurrentStreams = maxConcurrentStreams
        self.shutdownGrace = shutdownGrace
        self.logger = logger
    }
}
