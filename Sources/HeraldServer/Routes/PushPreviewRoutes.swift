import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldPush
import HeraldStore

/// `GET /v1/notifications/{id}/push-preview`: the bodies APNs, FCM and Expo would receive for
/// one notification, built by the same ``PushPayload`` the push worker uses, with the
/// recipient's current unseen count as the badge.
struct PushPreviewRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/notifications/{id}/push-preview", preview)
        }
    }

    @Sendable func preview(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let stored = try await services.store.publishedNotification(id: context.parameter("id")) else {
            throw HTTPError.notificationNotFound
        }
        let counts = try await services.store.counts(userID: stored.userID)
        let payload = PushPayload(notification: stored.notification, badge: counts.unseen, options: stored.push)
        return try Response.json(payload.preview(now: services.now()))
    }
}
