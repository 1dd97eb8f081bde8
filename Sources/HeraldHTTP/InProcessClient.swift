/// Runs a responder without sockets: same target parsing, request ids and error mapping
/// as the HTTP transport. A streamed body is returned as what was queued by the time the
/// handler returned, and the stream is then closed as if the client had left.
public struct InProcessClient: Sendable {
    private let dispatcher: RequestDispatcher

    public init(responder: any Responder, logger: Logger = Logger(label: "herald.inprocess", level: .warning)) {
        dispatcher = RequestDispatcher(responder: responder, logger: logger)
    }

    /// `path` may contain a query ("/items?limit=10").
    public func execute(
        _ method: HTTPMethod,
        _ path: String,
        headers: HTTPHeaders = .init(),
        body: [UInt8] = []
    ) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        let request = Request(method: method, target: path, headers: headers, body: body)
        let context = dispatcher.makeContext(requestID: RequestDispatcher.requestID(from: headers))
        let response = await dispatcher.dispatch(request, context: context)
        var bytes: [UInt8]
        switch response.body {
        case .bytes(let body): bytes = body
        case .stream(let stream): bytes = stream.drainAndDetach()
        }
        if method == .HEAD { bytes = [] }
        return (response.status, response.headers, bytes)
    }
}
