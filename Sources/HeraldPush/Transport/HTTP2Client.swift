import HeraldThreads

/// An HTTP/2 client for push providers: many concurrent requests multiplexed as streams over a
/// few long-lived connections per host, driven by one thread of its own (libnghttp2 and OpenSSL
/// on epoll, over the HeraldHTTP2 core).
///
/// Requests wait for an open connection to take them as a new stream rather than opening
/// another (up to `maxConnectionsPerHost`). A failure surfaces as an `HTTP2ClientError` of
/// the request it hit and never ends another request silently.
///
/// The engine (its thread, its TLS context with the certificate authorities) starts with the
/// first request: a server whose providers are configured but idle (Expo's always is) runs no
/// thread for them and has loaded no certificates.
public final class HTTP2Client: Sendable {
    /// Started by the first request, on a dispatch thread (it reads the certificate authorities),
    /// while other first requests wait for it. A start that fails is a retryable
    /// `.connectionRefused` (descriptors may be short for a moment) and the next request tries
    /// again; after ``shutdown()``, requests fail `.closed`.
    private let engine: MadeOnFirstUse<NGHTTP2Engine>

    /// A client that starts its thread with its first request.
    public init(configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) {
        engine = MadeOnFirstUse { () throws -> NGHTTP2Engine in
            do throws(HTTP2ClientError) {
                return try NGHTTP2Engine(configuration: configuration)
            } catch {
                throw HTTP2ClientError(
                    kind: .connectionRefused, code: error.code, library: error.library,
                    message: "the HTTP/2 client could not start: \(error.message)")
            }
        }
    }

    deinit {
        engine.abandon { $0.close() }
    }

    /// Sends `request` and answers the server's response, whatever its status.
    ///
    /// Throws `HTTP2ClientError` when no response arrived (see `Kind`), or `CancellationError`
    /// when the task is cancelled first (the stream is then reset, or the queued request dropped).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        try await engine.value(retired: HTTP2ClientError.shutDown).send(request)
    }

    /// Connections opened so far; fewer than requests means multiplexing.
    public var connectionsOpened: Int { engine.made?.connectionsOpened ?? 0 }

    /// C handles of this client still allocated (a debug counter for leak tests): the TLS
    /// context while running, plus an `SSL` object and an `nghttp2_session` per open
    /// connection. Shutdown frees them all; a client that never sent holds none.
    public var liveHandles: Int { engine.made?.liveHandles ?? 0 }

    /// Whether the first request has started the engine (tests of the idle server).
    public var isStarted: Bool { engine.made != nil }

    /// Fails every request in flight with `.closed` and waits until every handle is freed (an
    /// engine still starting is waited for, then shut down); the client takes no request after it.
    public func shutdown() async {
        await engine.retire()?.shutdown()
    }
}
