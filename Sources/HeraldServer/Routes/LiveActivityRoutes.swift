import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldPush
import HeraldServerModel
import HeraldStore

/// Live Activities (APNs `liveactivity`): the app registers its ActivityKit tokens; a publisher
/// starts an activity for a user, then updates and ends it. Each push goes out through the
/// delivery outbox, one row per token, and answers with those rows.
struct LiveActivityRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/me/live-activities", registerToken)
            group.add(.DELETE, "/v1/me/live-activities/{token}", unregisterToken)
        }
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/users/{id}/live-activities", start)
            group.add(.POST, "/v1/live-activities/{activityId}", change)
            group.add(.GET, "/v1/live-activities/{activityId}/deliveries", deliveries)
        }
    }

    /// `{activityId, attributesType, token}` (an activity's update token) or
    /// `{attributesType, token, kind: "pushToStart"}`.
    @Sendable func registerToken(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        let registration = try JSONBody.decode(LiveActivityTokenRegistration.self, from: request)
        try registration.validate()
        try services.checkKnownApp(registration.appId)
        // Another user's activity is not found: its id tells nothing about whose it is.
        guard
            let token = try await services.store.registerLiveActivityToken(
                userID: userID, registration.normalized(), at: services.now())
        else { throw Self.notFound }
        return try Response.json(token)
    }

    /// Sign-out on a shared device: the user's token goes (hex compared in lower case, as stored).
    /// Idempotent; another user's token is never touched.
    @Sendable func unregisterToken(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try context.user.id
        _ = try await services.store.deleteLiveActivityToken(
            userID: userID, token: context.parameter("token").lowercased())
        return .noContent()
    }

    /// Starts an activity for user `id` on every device holding a push-to-start token of its type.
    @Sendable func start(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try UserRoutes.userID(context)
        let body = try JSONBody.decode(LiveActivityRequest.self, from: request)
        try body.validateStart()
        let now = services.now()
        let push = NewLiveActivityPush(
            id: UUID().uuidString.lowercased(), activityID: body.activityId ?? UUID().uuidString.lowercased(),
            userID: userID, content: try Self.content(body, event: .start, at: now), ttlSeconds: body.ttlSeconds,
            createdAt: now)
        return try await answer(push)
    }

    /// Updates or ends activity `activityId` through its update token.
    @Sendable func change(_ request: Request, _ context: RequestContext) async throws -> Response {
        let activityID = try Self.activityID(context)
        let body = try JSONBody.decode(LiveActivityRequest.self, from: request)
        try body.validateChange()
        let now = services.now()
        let push = NewLiveActivityPush(
            id: UUID().uuidString.lowercased(), activityID: activityID,
            content: try Self.content(body, event: body.event ?? .update, at: now), ttlSeconds: body.ttlSeconds,
            createdAt: now)
        return try await answer(push)
    }

    /// The deliveries of every push of the activity, oldest first.
    @Sendable func deliveries(_ request: Request, _ context: RequestContext) async throws -> Response {
        let activityID = try Self.activityID(context)
        guard let records = try await services.store.liveActivityDeliveries(activityID: activityID) else {
            throw Self.notFound
        }
        return try Response.json(DeliveryList(items: records.map(DeliveryItem.init)))
    }

    /// Writes `push` and answers 202 with its delivery rows, or the refusal.
    private func answer(_ push: NewLiveActivityPush) async throws -> Response {
        switch try await services.store.pushLiveActivity(push) {
        case .queued(let activity, let deliveries):
            if deliveries.contains(where: { $0.status == .queued }) { services.deliveryWake.wake() }
            return try Response.json(
                LiveActivityPushAnswer(
                    id: push.id, activityId: activity.id, userId: activity.userID, event: push.content.event,
                    deliveries: deliveries.map(DeliveryItem.init)),
                status: 202)
        case .unknownActivity:
            throw Self.notFound
        case .activityEnded:
            throw HTTPError(
                409, code: "live_activity_ended", message: "This Live Activity was ended; start a new one.",
                field: "event")
        case .activityExists:
            throw HTTPError(
                409, code: "live_activity_exists",
                message: "A Live Activity with this activityId exists; choose another id or leave it out.",
                field: "activityId")
        }
    }

    static let notFound = HTTPError(404, code: "not_found", message: "No such Live Activity.")

    /// The path's activity id; one that could never have been registered is not found.
    private static func activityID(_ context: RequestContext) throws -> String {
        let activityID = context.parameter("activityId")
        guard (try? Check.activityID(activityID, "activityId")) != nil else { throw notFound }
        return activityID
    }

    /// The content of `body`'s push at `now`, refused (400 `push_too_large`) when its APNs body is
    /// over the 4,096 bytes APNs takes: the bound on `contentState` and `attributes`.
    static func content(_ body: LiveActivityRequest, event: LiveActivityEvent, at now: Date) throws
        -> LiveActivityContent
    {
        let content = body.content(event: event, timestamp: now)
        let bytes = LiveActivityPayload(content: content).body.count
        if bytes > APNsRequest.maxPayloadBytes {
            throw ValidationError(
                field: "contentState", code: "push_too_large",
                message:
                    "The Live Activity push is \(bytes) bytes, \(bytes - APNsRequest.maxPayloadBytes) over the \(APNsRequest.maxPayloadBytes) APNs takes: shorten contentState, attributes or the alert."
            )
        }
        return content
    }
}

/// The answer to a Live Activity push: the push's id and where each of its deliveries stands.
struct LiveActivityPushAnswer: Encodable {
    var id: String
    var activityId: String
    var userId: String
    var event: LiveActivityEvent
    var deliveries: [DeliveryItem]
}
