/// An HTTP/2 client for push providers: many concurrent requests multiplexed as streams over a
/// few long-lived connections per host, driven by one thread of its own (libnghttp2 and OpenSSL
/// on epoll, over the HeraldHTTP2 core).
///
/// Requests wait for an open connection to take them as a new stream rather than opening
/// another (up to `maxConnectionsPerHost`). A failure surfaces as an `HTTP2ClientError` of
/// the request it hit and never ends another request silently.
public final class HTTP2Client: Sendable {
    private let engine: NGHTTP2Engine

    /// Starts the client's thread.
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) throws(HTTP2ClientError) {
        engine = try NGHTTP2Engine(configuration: configuration)
    }

    deinit {
        engine.close()
    }

    /// Sends `request` and answers the server's response, whatever its status.
    ///
    /// Throws `HTTP2ClientError` when no response arrived (see `Kind`), or `CancellationError`
    /// when the task is cancelled first (the stream is then reset, or the queued request dropped).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await engine.send(request)
    }

    /// Connections opened so far; fewer than requests means multiplexing.
    public var connectionsOpened: Int { engine.connectionsOpened }

    /// C handles of this client still allocated (a debug counter for leak tests): the TLS
    /// context while running, plus an `SSL` object and an `nghttp2_session` per open
    /// connection. Shutdown frees them all.
    public var liveHandles: Int { engine.liveHandles }

    /// Fails every request in flight with `.closed` and waits until every handle is freed.
    public func shutdown() async {
        await engine.shutdown()
    }
}
