/// What an action button of a push does when the person taps it, found by the button's
/// identifier: the `UNNotificationAction` identifier of the category the publisher named in
/// `push.category` (APNs `aps.category`, FCM `click_action`, Expo `categoryId`).
///
/// ```swift
/// PushRouter(..., actions: [
///     .opensNotification("VIEW_ORDER"),                       // as a tap on the push
///     .opens("TRACK") { tap in tap.data["orderId"].map { "/orders/\($0)/tracking" } },
///     .staysPut("SNOOZE"),                                     // handled elsewhere; nothing opens
/// ])
/// ```
public struct PushAction: Sendable {
    /// Where a tapped action leads.
    public enum Route: Sendable, Equatable {
        /// The push's own destination, as a tap on the notification (deep link, detail, type).
        case notification
        /// This path of the app.
        case path(String)
        /// Nowhere: the app stays where it is (a button that only acts, such as "Snooze").
        case stay
    }

    /// The button's identifier.
    public let identifier: String
    /// Where a tap of the button on `tap`'s push leads.
    public let route: @MainActor @Sendable (PushTap) -> Route

    public init(identifier: String, route: @escaping @MainActor @Sendable (PushTap) -> Route) {
        self.identifier = identifier
        self.route = route
    }

    /// A button that opens the push's own destination.
    public static func opensNotification(_ identifier: String) -> PushAction {
        PushAction(identifier: identifier) { _ in .notification }
    }

    /// A button that opens the path `path` makes from the push; nil opens the push's own
    /// destination instead.
    public static func opens(
        _ identifier: String, _ path: @escaping @MainActor @Sendable (PushTap) -> String?
    ) -> PushAction {
        PushAction(identifier: identifier) { tap in path(tap).map(Route.path) ?? .notification }
    }

    /// A button that opens nothing.
    public static func staysPut(_ identifier: String) -> PushAction {
        PushAction(identifier: identifier) { _ in .stay }
    }

    /// The identifiers the OS and Expo give a tap on the notification itself.
    static let defaultIdentifiers: Set<String> = [
        "com.apple.UNNotificationDefaultActionIdentifier", "expo.modules.notifications.actions.DEFAULT",
    ]
    /// The identifier of a notification swiped away (only with `.customDismissAction`).
    static let dismissIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
}
