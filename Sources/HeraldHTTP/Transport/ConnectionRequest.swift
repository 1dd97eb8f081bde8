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
    let requestID: String
    let startTime: ContinuousClock.Instant
    let method: HTTPMethod
    let path: String
    let query: [String: String]
    let headers: HTTPHeaders

    var phase = Phase.receiving
    var body: [UInt8] = []
    var receivedBytes = 0
    var bodyTooLarge = false
    var stream: StreamLink?

    let shared = Mutex(Shared())

    init(
        connection: ConnectionHandle,
        method: HTTPMethod,
        path: String,
        query: [String: String],
        headers: HTTPHeaders
    ) {
        self.connection = connection
        self.requestID = RequestDispatcher.requestID(from: headers)
        self.startTime = .now
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    var identifier: ObjectIdentifier { ObjectIdentifier(self) }
}
