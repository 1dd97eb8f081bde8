/// What the router shows for a path: a tab, a screen pushed over the tabs, or Oops!.
public enum AppRoute: Sendable, Equatable {
    /// A tab root, with the tab bar.
    case tab(AppTab)
    /// A screen pushed over the tabs, full screen (no tab bar, TABS-03).
    case screen(path: String)
    /// No route matched: the "This screen doesn't exist." screen (NOTFOUND-01).
    case notFound(path: String)

    /// Whether the tab bar shows over this route: on tab roots only (TABS-03).
    public var showsTabBar: Bool {
        if case .tab = self { true } else { false }
    }
}

/// The app's routes, matched the way the router matches them: the bare app path redirects to
/// the Home tab (ROOT-01), tab roots are tabs, a path matching a screen pattern is that screen,
/// and anything else is not found (NOTFOUND-01).
public struct AppRouteTable: Sendable, Equatable {
    /// Screen patterns such as `/orders/{orderId}`: a `{name}` part matches one path segment.
    public var screenPatterns: [String]

    /// The bare app path; it redirects to the Home tab (ROOT-01).
    public static let homePath = "/"
    /// The account details sheet (GATE-05). Written for HeraldKit.
    public static let accountDetailsPath = "/account/details"

    public init(screenPatterns: [String]) {
        self.screenPatterns = screenPatterns
    }

    /// The screens the standard catalog routes to, the inbox and its detail page, and the
    /// account details sheet.
    public static let standard = AppRouteTable(screenPatterns: [
        "/notifications", "/notifications/detail/{id}", "/orders", "/orders/{orderId}", "/discounts",
        "/products/{productId}", accountDetailsPath,
    ])

    /// The route for `path`; a query or fragment does not count, nor does a trailing `/`.
    public func route(for path: String) -> AppRoute {
        let bare = String(path.prefix { $0 != "?" && $0 != "#" })
        guard bare.isEmpty || bare.hasPrefix("/") else { return .notFound(path: path) }
        let segments = bare.split(separator: "/")
        if segments.isEmpty { return .tab(.home) }
        let normalized = "/" + segments.joined(separator: "/")
        if let tab = AppTab.allCases.first(where: { $0.path == normalized }) { return .tab(tab) }
        let matches = screenPatterns.contains { pattern in
            let parts = pattern.split(separator: "/")
            return parts.count == segments.count
                && zip(parts, segments).allSatisfy { part, segment in
                    (part.hasPrefix("{") && part.hasSuffix("}")) || part == segment
                }
        }
        return matches ? .screen(path: path) : .notFound(path: path)
    }
}
