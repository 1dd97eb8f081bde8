import Foundation
import HeraldModel

extension NotificationDetailContent {
    /// Lays out `notification` (with its detail, as the detail call answers it). Without rich
    /// content the title and body are the push title and text (DETAIL-08); the page has the
    /// hero layout only for an `https` hero image (DETAIL-03, DETAIL-04).
    init(_ notification: InboxNotification) {
        let detail = notification.detail
        let html = detail?.html.flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            layout: Self.httpsURL(detail?.heroImageURL).map(NotificationDetailLayout.hero) ?? .compact,
            title: notification.title,
            body: html.map(NotificationDetailBody.html) ?? .text(notification.body),
            badge: notification.readAt == nil ? NotificationDetailCopy.newBadge : nil,
            action: Self.actionButton(detail),
            createdAt: notification.createdAt)
    }

    /// An `https` URL with a host, or `nil`.
    static func httpsURL(_ text: String?) -> URL? {
        guard let text, let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// The CTA when there is somewhere to go, labelled `View Details` without a label (DETAIL-07).
    private static func actionButton(_ detail: NotificationDetail?) -> ButtonState? {
        guard let detail, detail.actionPath != nil || detail.actionURL != nil else { return nil }
        let label = detail.actionLabel?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return ButtonState(title: label.isEmpty ? NotificationDetailCopy.defaultActionLabel : label)
    }
}
