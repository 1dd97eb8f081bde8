import HeraldLog

/// How an `HTTP2Client` connects, how long it waits, and where it reports trouble.
public struct HTTP2ClientConfiguration: Sendable {
    /// How HTTP/2 is negotiated.
    public enum Negotiation: Sendable {
        /// HTTP/2 through TLS ALPN (`https://`), the providers' way.
        case tls
        /// HTTP/2 with prior knowledge over cleartext (`http://`, h2c), for local sandboxes.
        /// (The nghttp2 engine speaks h2c to every `http://` URL and TLS to every `https://` one.)
        case priorKnowledge
    }

    /// How HTTP/2 is negotiated.
    public var negotiation: Negotiation
    /// Connections kept open to one host at most; further requests wait to share them.
    public var maxConnectionsPerHost: Int
    /// Streams in flight on one connection at most (the server's own limit also applies).
    public var maxConcurrentStreams: Int
    /// The time one request may take, connecting included, unless it sets its own.
    public var requestTimeout: Duration
    /// The time connecting may take.
    public var connectTimeout: Duration
    /// Idle time before TCP keep-alive probes start on a connection.
    public var keepAliveIdle: Duration
    /// A PEM file of the certificate authorities to trust instead of the system's (a sandbox's
    /// self-signed certificate).
    public var caFile: String?
    /// The application's logger: connections that could not be set up (warning; error when
    /// retrying cannot help), GOAWAYs (notice; warning with an error code) and connections lost
    /// with requests in flight (warning). Requests' own failures are thrown, not logged.
    public var logger: Logger

    public init(
        negotiation: Negotiation = .tls, maxConnectionsPerHost: Int = 2, maxConcurrentStreams: Int = 1000,
        requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        keepAliveIdle: Duration = .seconds(60), caFile: String? = nil, logger: Logger = .disabled
    ) {
        self.negotiation = negotiation
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxConcurrentStreams = maxConcurrentStreams
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.keepAliveIdle = keepAliveIdle
        self.caFile = caFile
        self.logger = logger
    }
}
