import Synchronization

/// One request on one connection, from its headers until libmicrohttpd reports it done.
/// Created on the first access-handler call, released in the request-completed callback.
final class ConnectionRequest: @unchecked Sendable {
    // Safe: the `var`s are touched only by this connection's MHD callbacks (one at a time, one thread); task-shared state is in the `shared` Mutex.

    enum Phase {
        /// Reading the body.
        case receiving
        /// Answered by the transport itself (413, 503 while stopping).
        case answered
        /// The responder is running or its response is being sent.
        case handling
    }

    struct Shared {
        /// The response, once the handler (or the timeout, or shutdown) produced it.
        var response: Response?
        var completed = false
        /// The connection is suspended waiting for `response`.
        var parked = false
        var handlerTask: Task<Void, Never>?
    }

    let connection: ConnectionHandle
    /// The connection's deadline state; nil only if the library gave no socket context.
    let peer: PeerConnection?
    /// The request line's protocol, e.g. "HTTP/1.1".
    let version: String
    let requestID: String
    let startTime: ContinuousClock.Instant
    let method: HTTPMethod
    let path: String
    /// The path as sent, still percent-encoded.
    let rawPath: String
    let query: [String: String]
    let headers: HTTPHeaders

    var phase = Phase.receiving
    var body: [UInt8] = []
    var receivedBytes = 0
    var bodyTooLarge = false
    /// Its response is an event stream whose socket left the library (``StreamSockets``).
    var detached = false

    let shared = Mutex(Shared())

    init(
        connection: ConnectionHandle,
        peer: PeerConnection?,
        version: String,
        method: HTTPMethod,
        rawPath: String,
        query: [String: String],
        headers: HTTPHeaders
    ) {
        self.connection = connection
        self.peer = peer
        self.version = version
        self.requestID = RequestDispatcher.requestID(from: headers)
        self.startTime = .now
        self.method = method
        self.rawPath = rawPath
        self.path = URLDecoding.decodePath(rawPath)
        self.query = query
        self.headers = headers
    }

    var identifier: ObjectIdentifier { ObjectIdentifier(self) }

    /// The request as the responder sees it.
    func incoming(body: [UInt8] = []) -> Request {
        Request(method: method, path: path, rawPath: rawPath, query: query, headers: headers, body: body)
    }
}
