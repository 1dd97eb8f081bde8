import HeraldHTTP
import HeraldStore

/// Answers a request whose store call could not reach the database (it is restarting, or
/// the network to it is down, or every connection stayed busy) with 503
/// `database_unavailable` and `Retry-After`, instead of a 500: the same request is worth
/// sending again shortly. Innermost middleware, so the metrics and the access log see the 503.
struct DatabaseUnavailableMiddleware: Middleware {
    /// Seconds a client is asked to wait before retrying.
    static let retryAfterSeconds = 2

    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StoreError where error.isUnavailable {
            context.logger.warning("database unavailable", metadata: ["error": "\(error)"])
            var headers = HTTPHeaders()
            headers["Retry-After"] = String(Self.retryAfterSeconds)
            throw HTTPError(
                503, code: "database_unavailable",
                message:
                    "The database cannot be reached right now; retry in a few seconds. A change answered this way may or may not have been saved: repeat a publish with its Idempotency-Key.",
                headers: headers)
        }
    }
}
