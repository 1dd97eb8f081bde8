/// Anything that answers requests: a router, a single handler, a test double.
public protocol Responder: Sendable {
    func respond(to request: Request, context: RequestContext) async throws -> Response

    /// The transport answered `request` by itself (bad framing, 408, 413, 503 while stopping),
    /// without calling ``respond(to:context:)``: a responder with logging and metrics records it
    /// like any other answer. The default does nothing.
    func transportAnswered(_ request: Request, with response: Response, context: RequestContext) async
}

extension Responder {
    public func transportAnswered(_ request: Request, with response: Response, context: RequestContext) async {}
}

/// Code that wraps request handling: it may change the request or context, call `next`
/// (or not), and change or replace the response.
public protocol Middleware: Sendable {
    func handle(
        _ request: Request,
        context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response
}

/// A responder made from a closure.
public struct ClosureResponder: Responder {
    private let body: @Sendable (Request, RequestContext) async throws -> Response

    public init(_ body: @escaping @Sendable (Request, RequestContext) async throws -> Response) {
        self.body = body
    }

    public func respond(to request: Request, context: RequestContext) async throws -> Response {
        try await body(request, context)
    }
}
