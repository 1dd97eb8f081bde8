/// The part of request handling shared by the socket transport and the in-process client:
/// context creation, calling the responder, error mapping and the request-id header.
struct RequestDispatcher: Sendable {
    let responder: any Responder
    let logger: Logger

    func makeContext(requestID: String, startTime: ContinuousClock.Instant = .now) -> RequestContext {
        var requestLogger = logger
        requestLogger.metadata["request_id"] = requestID
        return RequestContext(requestID: requestID, logger: requestLogger, startTime: startTime)
    }

    static func requestID(from headers: HTTPHeaders) -> String {
        RequestID.sanitized(headers[RequestID.headerName]) ?? RequestID.generate()
    }

    func dispatch(_ request: Request, context: RequestContext) async -> Response {
        var response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = ErrorMapping.response(for: error, context: context)
        }
        if response.headers[RequestID.headerName] == nil {
            response.headers[RequestID.headerName] = context.requestID
        }
        return response
    }
}
