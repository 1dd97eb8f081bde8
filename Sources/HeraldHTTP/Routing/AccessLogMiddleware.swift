/// Logs one structured line per request: request_id, method, path, route, status,
/// duration_ms and bytes.
public struct AccessLogMiddleware: Middleware {
    public var level: Logger.Level

    public init(level: Logger.Level = .info) {
        self.level = level
    }

    public func handle(
        _ request: Request,
        context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            let bytes: String
            switch response.body {
            case .bytes(let body): bytes = String(body.count)
            case .stream: bytes = "stream"
            }
            log(request, context, status: response.status, bytes: bytes)
            return response
        } catch {
            let mapped = HTTPError.from(error)
            log(request, context, status: mapped.status, bytes: String(mapped.jsonBody.count))
            throw error
        }
    }

    private func log(_ request: Request, _ context: RequestContext, status: Int, bytes: String) {
        guard context.logger.isEnabled(level) else { return }
        let elapsed = ContinuousClock.now - context.startTime
        let (seconds, attoseconds) = elapsed.components
        let millis = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        context.logger.log(
            level: level, "request",
            metadata: [
                "request_id": context.requestID,
                "method": request.method.rawValue,
                "path": request.path,
                "route": context.route ?? "-",
                "status": String(status),
                "duration_ms": millis.decimal(fractionDigits: 3),
                "bytes": bytes,
            ])
    }
}
