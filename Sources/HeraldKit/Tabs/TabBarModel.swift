import Observation

/// The tab bar: five tabs for guests and members, the My Bag count and the Profile unread
/// badges, hidden on full-screen routes (TABS-01..TABS-03).
@MainActor @Observable public final class TabBarModel {
    /// Counts above this show as "99+" (TABS-01, TABS-02).
    public static let badgeCap = 99

    /// One tab as the bar shows it.
    public struct Item: Sendable, Equatable, Identifiable {
        public var tab: AppTab
        public var title: String
        /// The badge text; `nil` shows no badge.
        public var badge: String?
        public var isSelected: Bool
        public var id: AppTab { tab }
    }

    /// Whether the bar shows: on tab roots, not on pushed full-screen routes (TABS-03).
    public private(set) var isVisible = true
    /// The tab in front.
    public private(set) var selectedTab: AppTab = .home
    private var bagCount = 0
    private var unreadCount = 0
    private var userID: String?

    @ObservationIgnored private let routes: AppRouteTable

    /// A bar on Home, for a guest with an empty bag; `routes` tells tab roots from full-screen
    /// routes.
    public init(routes: AppRouteTable = .standard) {
        self.routes = routes
    }

    /// The five tabs, in order, with their badges.
    public var items: [Item] {
        AppTab.allCases.map { tab in
            Item(tab: tab, title: tab.title, badge: badge(of: tab), isSelected: tab == selectedTab)
        }
    }

    /// The router showed `path`: a tab root shows the bar and selects its tab; any other route
    /// (a pushed screen such as a product, Oops!) hides it (TABS-03).
    public func routeChanged(to path: String) {
        switch routes.route(for: path) {
        case .tab(let tab):
            selectedTab = tab
            isVisible = true
        case .screen, .notFound:
            isVisible = false
        }
    }

    /// The bag holds `count` items, for a guest or a member (TABS-01).
    public func bagCountChanged(_ count: Int) {
        bagCount = count
    }

    /// The unread notification count changed (``AppBadgeModel/unreadCount``) (TABS-02).
    public func unreadCountChanged(_ count: Int) {
        unreadCount = count
    }

    /// The session changed: the Profile badge shows only once a user id exists (TABS-02), and
    /// another user's count is not carried over.
    public func sessionChanged(userID: String?) {
        if userID != self.userID { unreadCount = 0 }
        self.userID = userID
    }

    private func badge(of tab: AppTab) -> String? {
        switch tab {
        case .bag: Self.badgeText(bagCount)
        case .profile: userID == nil ? nil : Self.badgeText(unreadCount)
        case .home, .shop, .loyalty: nil
        }
    }

    /// A count above 0 as a badge, capped at "99+".
    static func badgeText(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        return count > badgeCap ? TabBarCopy.cappedBadge : String(count)
    }
}
