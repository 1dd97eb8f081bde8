import FoundationEssentials
import HeraldHTTP
import HeraldModel

/// What a publisher reads of one user besides devices (the console's Users page): the stored
/// preferences and OS decision, read-only, and the recent deliveries.
struct UserRoutes {
    let services: Services

    /// How many of the user's newest notifications `GET /v1/users/{id}/deliveries` covers by default.
    static let defaultDeliveryNotifications = 20

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/users/{id}/preferences", preferences)
            group.add(.GET, "/v1/users/{id}/deliveries", deliveries)
        }
    }

    @Sendable func preferences(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try Self.userID(context)
        return try Response.json(try await services.preferences(of: userID))
    }

    /// The deliveries of the user's newest `limit` notifications (20 unless told), newest first.
    @Sendable func deliveries(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try Self.userID(context)
        let limit =
            request.query["limit"] == nil
            ? Self.defaultDeliveryNotifications : try InboxRoutes.limit(request.query["limit"])
        let records = try await services.store.deliveries(userID: userID, notificationLimit: limit)
        return try Response.json(DeliveryList(items: records.map(DeliveryItem.init)))
    }

    static func userID(_ context: RequestContext) throws -> String {
        let userID = context.parameter("id")
        try Validate.userID(userID, field: "id")
        return userID
    }
}
