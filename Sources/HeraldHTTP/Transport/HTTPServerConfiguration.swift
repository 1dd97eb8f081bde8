/// Settings of the HTTP transport.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: an IPv4 or IPv6 literal, or a name such as "localhost".
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free port (read it back from `HTTPServer.port`).
    public var port: Int = 8080
    /// Larger request bodies are refused with 413 `payload_too_large`: from Content-Length
    /// before the body is read, and while reading chunked bodies.
    public var maxBodyBytes: Int = 1_048_576
    /// Idle connections are closed after this long. Open event streams are exempt.
    public var idleTimeout: Duration = .seconds(60)
    /// A handler slower than this is cancelled and answered with 503 `timeout`.
    /// Zero or less disables the limit.
    public var requestTimeout: Duration = .seconds(30)
    /// Event-loop threads of the transport (handlers run on Swift's task pool).
    public var threadPoolSize: Int = 2
    /// Most simultaneous connections. The open-files soft limit is raised to the hard
    /// limit at start.
    public var connectionLimit: Int = 20_000
    /// Memory libmicrohttpd gives each connection for request headers and send buffers
    /// (its default is 32 KiB). Requests whose headers do not fit get 431. Lower values
    /// save memory with many idle event streams (measured: about 30 KiB per stream at
    /// 32 KiB, 18 KiB at 8 KiB).
    public var connectionMemoryLimit: Int = 32 * 1024

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = 1_048_576,
        idleTimeout: Duration = .seconds(60),
        requestTimeout: Duration = .seconds(30),
        threadPoolSize: Int = 2,
        connectionLimit: Int = 20_000,
        connectionMemoryLimit: Int = 32 * 1024
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.threadPoolSize = threadPoolSize
        self.connectionLimit = connectionLimit
        self.connectionMemoryLimit = connectionMemoryLimit
    }

    /// The idle timeout in whole seconds as libmicrohttpd takes it (rounded up; 0 = none).
    var idleTimeoutSeconds: UInt32 {
        guard idleTimeout > .zero else { return 0 }
        let (seconds, attoseconds) = idleTimeout.components
        return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }
}
