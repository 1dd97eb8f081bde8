import FoundationEssentials
import HeraldHTTP

/// Health, readiness, metrics and the contract document.
struct OperationRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.add(.GET, "/healthz", health)
        router.add(.GET, "/readyz", ready)
        router.add(.GET, "/metrics", metrics)
        router.add(.GET, "/openapi.json", openAPI)
    }

    private static let healthBody = Array(#"{"status":"ok"}"#.utf8)

    @Sendable func health(_ request: Request, _ context: RequestContext) async throws -> Response {
        Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: .bytes(Self.healthBody))
    }

    /// Ready when the database answers.
    @Sendable func ready(_ request: Request, _ context: RequestContext) async throws -> Response {
        do {
            try await services.store.ping()
        } catch {
            context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
            throw HTTPError(503, code: "not_ready", message: "The database is not answering.")
        }
        return Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: .bytes(Array(#"{"status":"ready"}"#.utf8)))
    }

    @Sendable func metrics(_ request: Request, _ context: RequestContext) async throws -> Response {
        Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
            body: .bytes(Array(services.metrics.render().utf8)))
    }

    @Sendable func openAPI(_ request: Request, _ context: RequestContext) async throws -> Response {
        Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: .bytes(OpenAPIDocument.bytes))
    }
}
