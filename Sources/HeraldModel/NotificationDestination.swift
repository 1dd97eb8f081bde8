#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a tap on a notification leads, from the inbox or from a push (TAP-01, TAP-02, TAP-04).
///
/// One pure function decides it, so the inbox and the push router always agree:
/// 1. a deep link that passes the allowlist wins;
/// 2. else the detail page, when the notification has rich content;
/// 3. else the route the catalog builds from the type (`/orders/123`, `/loyalty`, `/`);
/// 4. else, for general, error, unknown and hidden types and types whose route is the inbox
///    (reminders, account), the inbox.
///
/// The inbox shows ``inbox`` as "no destination": no chevron, and a tap does nothing (INBOX-09).
/// A push router opens ``path`` in every case, so such a push lands in the inbox (TAP-02).
public enum NotificationDestination: Sendable, Equatable {
    /// An allowlisted deep link, opened as given.
    case deepLink(String)
    /// The rich detail page, `/notifications/detail/{id}`.
    case detail(id: String)
    /// The route built from the type by the catalog.
    case typed(path: String)
    /// Nothing better than the inbox.
    case inbox

    /// What the router opens.
    public var path: String {
        switch self {
        case .deepLink(let link): link
        case .detail(let id): Self.detailPath(id: id)
        case .typed(let path): path
        case .inbox: Catalog.inboxPath
        }
    }

    /// Resolves the destination of a notification from the fields a push payload and an inbox
    /// row both carry.
    /// - Parameters:
    ///   - type: the dotted type, such as `order.shipped`.
    ///   - data: the publisher's data; fills route placeholders such as `{orderId}`.
    ///   - deepLink: the publisher's deep link, if any; used only when allowlisted.
    ///   - hasDetail: whether the notification has rich content.
    ///   - id: the notification id; without one the detail page cannot be opened.
    ///   - allowedPrefixes: the app-config deep-link allowlist (`deepLinks.allowedPrefixes`).
    ///   - catalog: the category catalog in force.
    public static func resolve(
        type: String, data: [String: String], deepLink: String?, hasDetail: Bool, id: String,
        allowedPrefixes: [String], catalog: Catalog
    ) -> NotificationDestination {
        if let deepLink, isAllowed(deepLink: deepLink, allowedPrefixes: allowedPrefixes) {
            return .deepLink(deepLink)
        }
        if hasDetail, !id.isEmpty { return .detail(id: id) }
        let path = catalog.tapPath(type: type, data: data)
        return path == Catalog.inboxPath ? .inbox : .typed(path: path)
    }

    /// Resolves the destination of an inbox notification.
    public static func resolve(
        _ notification: InboxNotification, allowedPrefixes: [String], catalog: Catalog
    ) -> NotificationDestination {
        resolve(
            type: notification.type, data: notification.data, deepLink: notification.deepLink,
            hasDetail: notification.hasDetail, id: notification.id, allowedPrefixes: allowedPrefixes,
            catalog: catalog)
    }

    /// Whether `deepLink` may be opened: it starts with one of the non-empty `allowedPrefixes`,
    /// and has no space, control character, backslash or `..` segment.
    public static func isAllowed(deepLink: String, allowedPrefixes: [String]) -> Bool {
        InAppPath.isSafe(deepLink) && allowedPrefixes.contains { !$0.isEmpty && deepLink.hasPrefix($0) }
    }

    /// `/notifications/detail/{id}`, the id escaped as one path segment.
    public static func detailPath(id: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var segment = ""
        for byte in id.utf8 {
            if unreserved.contains(byte) {
                segment.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                segment += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        // A segment of only dots would climb the path.
        if segment.allSatisfy({ $0 == "." }) { segment = segment.replacingLiteral(".", with: "%2E") }
        return "\(Catalog.inboxPath)/detail/\(segment)"
    }
}
