import Foundation
import HeraldModel

/// One notification in the list, as a person sees and hears it.
public struct InboxRow: Sendable, Equatable, Identifiable {
    public var id: String
    public var type: String
    public var title: String
    public var body: String
    public var createdAt: Date
    /// The unread dot: shown until this row is tapped (or read elsewhere), whatever the badge
    /// does (INBOX-08).
    public var showsUnreadDot: Bool
    /// Where a tap leads; `nil` when nowhere (INBOX-09).
    public var destination: NotificationDestination?
    /// The row is one accessibility element with this label (INBOX-14).
    public var accessibilityLabel: String
    /// Its custom actions: `Delete`, which does what the swipe does (INBOX-14).
    public var accessibilityActions: [AccessibilityActionState]

    /// The chevron shows only when a tap leads somewhere (INBOX-09).
    public var showsChevron: Bool { destination != nil }

    public init(
        id: String, type: String, title: String, body: String, createdAt: Date, showsUnreadDot: Bool,
        destination: NotificationDestination?, accessibilityLabel: String,
        accessibilityActions: [AccessibilityActionState]
    ) {
        self.id = id
        self.type = type
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.showsUnreadDot = showsUnreadDot
        self.destination = destination
        self.accessibilityLabel = accessibilityLabel
        self.accessibilityActions = accessibilityActions
    }
}
