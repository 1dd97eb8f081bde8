import Foundation
import HeraldModel

/// Where a push tap leads (TAP-01, TAP-02, TAP-04), in order of precedence: an allowlisted
/// deep link, else the detail page when the notification has rich content, else the route the
/// catalog builds from the type and data (the inbox for general and unknown types).
public enum PushTapRoute: Sendable, Equatable {
    /// The publisher's deep link; it starts with an allowlisted prefix.
    case deepLink(String)
    /// The notification's detail page, like an inbox tap on a row with rich content.
    case detail(notificationId: String)
    /// The catalog's route for the type.
    case typed(path: String)

    /// The route of `tap`. `allowedDeepLinkPrefixes` are app-config's `deepLinks.allowedPrefixes`:
    /// a deep link is followed when it starts with one of them (an empty prefix allows nothing).
    public init(tap: PushTap, catalog: Catalog, allowedDeepLinkPrefixes: [String]) {
        if let link = tap.deepLink, allowedDeepLinkPrefixes.contains(where: { !$0.isEmpty && link.hasPrefix($0) }) {
            self = .deepLink(link)
        } else if tap.hasDetail {
            self = .detail(notificationId: tap.notificationId)
        } else {
            self = .typed(path: catalog.tapPath(type: tap.type, data: tap.data))
        }
    }

    /// What the navigator opens.
    public var path: String {
        switch self {
        case .deepLink(let link): link
        case .detail(let notificationId): Self.detailPath(notificationId: notificationId)
        case .typed(let path): path
        }
    }

    /// `/notifications/detail/{notificationId}`, the id escaped as one path segment.
    public static func detailPath(notificationId: String) -> String {
        let segment = notificationId.addingPercentEncoding(withAllowedCharacters: unreserved) ?? notificationId
        return "\(Catalog.inboxPath)/detail/\(segment)"
    }

    /// RFC 3986 unreserved characters.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
