import FoundationEssentials
import HeraldHTTP
import HeraldModel

/// Analytics event batches from the app (EVENT-01..07 ingestion).
struct EventRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/me/events", ingest)
        }
    }

    @Sendable func ingest(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let batch = try JSONBody.decode(AnalyticsEventBatch.self, from: request)
        try batch.validate()
        try await services.store.insertEvents(userID: userID, batch.events, receivedAt: services.now())
        return try Response.json(AnalyticsEventReceipt(accepted: batch.events.count), status: 202)
    }
}
