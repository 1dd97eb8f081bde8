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
    /// Most simultaneous connections; `nil` derives it from the open-files limit at start
    /// (the soft limit is raised to the hard limit first), keeping
    /// ``reservedFileDescriptors`` for the database, logs, push connections and the rest.
    public var connectionLimit: Int? = nil
    /// Descriptors kept out of the derived connection limit.
    public var reservedFileDescriptors: Int = 256
    /// Most simultaneous connections from one client address; 0 means no per-address cap.
    public var connectionsPerAddress: Int = 512
    /// Longest time from accepting a connection to its whole request head: the client is
    /// answered 408 and the connection closed. A kept-alive connection has ``idleTimeout`` for
    /// its next head. Zero or less disables the limit.
    public var headTimeout: Duration = .seconds(10)
    /// Longest time to receive a request body once its head is in: 408, then close. Zero or
    /// less disables the limit.
    public var bodyTimeout: Duration = .seconds(30)
    /// Memory libmicrohttpd gives each connection, held for as long as the library holds the
    /// connection: the request head is read into it (a head that does not fit gets 431, 414 for
    /// a request line) and responses are written from it. Open event streams leave the library
    /// (``StreamSockets``) and do not keep it; idle kept-alive connections do.
    public var connectionMemoryLimit: Int = defaultConnectionMemory

    /// 36 KiB: heads up to about 35 KiB. Above 32 KiB libmicrohttpd maps each connection's pool
    /// (`mmap`) instead of taking it from `malloc`, so a closed connection's pool goes straight
    /// back to the kernel: with `malloc`'s 32 KiB pools, the thousands of connections in flight
    /// while 10,000 streams opened left the heap fragmented, 6.9 KiB of RSS a stream after they
    /// closed, against 2.2 KiB with mapped pools (`scripts/bench-stream.py`, 2026-12-07).
    public static let defaultConnectionMemory = 36 * 1024

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = 1_048_576,
        idleTimeout: Duration = .seconds(60),
        requestTimeout: Duration = .seconds(30),
        threadPoolSize: Int = 2,
        connectionLimit: Int? = nil,
        connectionMemoryLimit: Int = defaultConnectionMemory
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

    /// The connection limit in force for an open-files limit of `openFiles` descriptors: what is
    /// left after the reserve (at least half the limit is kept for the rest when the limit is
    /// small), or the configured limit if it is lower. A configured limit is never allowed to
    /// eat the reserve: with every descriptor taken by clients, the database, the log, push
    /// connections and the runtime itself (libdispatch traps when it cannot make a descriptor)
    /// would be the ones to fail.
    func effectiveConnectionLimit(openFiles: Int) -> Int {
        let reserve = min(reservedFileDescriptors, openFiles / 2)
        let available = max(1, openFiles - reserve)
        guard let connectionLimit else { return available }
        return max(1, min(connectionLimit, available))
    }

    /// A body larger than ``maxBodyBytes`` is read and dropped up to this many bytes, so its
    /// 413 reaches a client that sends the whole body before reading (a lingering close);
    /// past it the connection is closed.
    var discardLimit: Int { maxBodyBytes * 4 + 65_536 }

    /// The idle timeout in whole seconds as libmicrohttpd takes it (rounded up; 0 = none).
    var idleTimeoutSeconds: UInt32 {
        guard idleTimeout > .zero else { return 0 }
        let (seconds, attoseconds) = idleTimeout.components
        return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }
}
