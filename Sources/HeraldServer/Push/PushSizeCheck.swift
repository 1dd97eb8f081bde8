import FoundationEssentials
import HeraldModel
import HeraldPush
import HeraldServerModel

/// Refuses, when it is published, a push that no provider could take: one whose smallest form
/// (a badge of 1, no event kind, no device token) is already over a provider's size limit would
/// only come back later as failed deliveries.
enum PushSizeCheck {
    /// A notification id as long as every real one (a lowercase UUID).
    static let placeholderID = "00000000-0000-0000-0000-000000000000"

    /// Throws a ``ValidationError`` (`push`, `push_too_large`) naming each provider the push does
    /// not fit and by how many bytes; nothing for a publish that does not push.
    static func check(_ draft: NotificationDraft, catalog: Catalog) throws {
        guard draft.push?.send == true, !catalog.isHidden(type: draft.type) else { return }
        let hasDetail = draft.detail.map { !$0.isEmpty } ?? false
        let notification = InboxNotification(
            id: placeholderID, type: draft.type, category: catalog.category(forType: draft.type), title: draft.title,
            body: draft.body, data: draft.data ?? [:], deepLink: draft.deepLink, hasDetail: hasDetail,
            createdAt: Date(timeIntervalSince1970: 0))
        let payload = PushPayload(notification: notification, badge: 1, options: draft.push)
        let over = payload.sizes.filter { !$0.fits }
        guard !over.isEmpty else { return }
        let parts = over.map { check in
            "\(name(check.provider)) by \(check.bytes - check.limit) bytes (\(check.bytes) of \(check.limit))"
        }
        throw ValidationError(
            field: "push", code: "push_too_large",
            message:
                "The push is too large for \(parts.joined(separator: ", ")) at its smallest: shorten data, the title or the body, or publish without push."
        )
    }

    private static func name(_ provider: PushProvider) -> String {
        switch provider {
        case .apns: "APNs"
        case .fcm: "FCM"
        case .expo: "Expo"
        }
    }
}

extension NotificationDraft {
    /// The notification fields of a publish.
    init(_ publish: PublishRequest) {
        self.init(
            type: publish.type, title: publish.title, body: publish.body, data: publish.data,
            deepLink: publish.deepLink, detail: publish.detail, push: publish.push)
    }

    /// The notification fields of a broadcast.
    init(_ broadcast: BroadcastRequest) {
        self.init(
            type: broadcast.type, title: broadcast.title, body: broadcast.body, data: broadcast.data,
            deepLink: broadcast.deepLink, detail: broadcast.detail, push: broadcast.push)
    }
}
