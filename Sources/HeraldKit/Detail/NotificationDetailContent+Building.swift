import Foundation
import HeraldModel

extension NotificationDetailContent {
    /// Lays out `notification` (with its detail, as the detail call answers it). Without rich
    /// content the title and body are the push title and text (DETAIL-08); the page has the
    /// hero layout only for an `https` hero image (DETAIL-03, DETAIL-04). The rules are
    /// ``NotificationDetailRules``, which the console's preview shows too.
    init(_ notification: InboxNotification) {
        let detail = notification.detail
        self.init(
            layout: NotificationDetailRules.heroImageURL(detail).map(NotificationDetailLayout.hero) ?? .compact,
            title: notification.title,
            body: NotificationDetailRules.html(detail).map(NotificationDetailBody.html) ?? .text(notification.body),
            badge: notification.readAt == nil ? NotificationDetailCopy.newBadge : nil,
            action: NotificationDetailRules.actionLabel(detail).map { ButtonState(title: $0) },
            createdAt: notification.createdAt)
    }
}
