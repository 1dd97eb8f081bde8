import HeraldKit
import Testing

@Suite("Tab bar: badges and visibility")
@MainActor struct TabBarModelTests {
    @Test("TABS-01 the five tabs, in order, for guests and members")
    func fiveTabs() {
        let bar = TabBarModel()
        #expect(bar.items.map(\.title) == ["Home", "Shop", "My Bag", "Loyalty", "Profile"])
        bar.sessionChanged(userID: "alice")
        #expect(bar.items.map(\.tab) == AppTab.allCases)
    }

    @Test(
        "TABS-01 My Bag shows its count above 0, capped at 99+, for guests and members",
        arguments: [nil, "alice"])
    func bagBadge(userID: String?) {
        let bar = TabBarModel()
        bar.sessionChanged(userID: userID)
        let cases: [(Int, String?)] = [(0, nil), (1, "1"), (99, "99"), (100, "99+"), (1_000, "99+")]
        for (count, badge) in cases {
            bar.bagCountChanged(count)
            #expect(bar.items.first { $0.tab == .bag }?.badge == badge)
        }
    }

    @Test("TABS-02 Profile shows the unread count once a user id exists, capped at 99+")
    func profileBadge() {
        let bar = TabBarModel()
        bar.unreadCountChanged(5)
        #expect(bar.items.first { $0.tab == .profile }?.badge == nil)

        bar.sessionChanged(userID: "alice")
        bar.unreadCountChanged(5)
        #expect(bar.items.first { $0.tab == .profile }?.badge == "5")
        bar.unreadCountChanged(99)
        #expect(bar.items.first { $0.tab == .profile }?.badge == "99")
        bar.unreadCountChanged(100)
        #expect(bar.items.first { $0.tab == .profile }?.badge == "99+")
        bar.unreadCountChanged(0)
        #expect(bar.items.first { $0.tab == .profile }?.badge == nil)

        bar.unreadCountChanged(7)
        bar.sessionChanged(userID: nil)
        #expect(bar.items.first { $0.tab == .profile }?.badge == nil)
        #expect(bar.items.filter { $0.tab != .bag }.allSatisfy { $0.badge == nil })
    }

    @Test("TABS-02 another user's unread count is not shown on the next user's Profile")
    func profileBadgeIsPerUser() {
        let bar = TabBarModel()
        bar.sessionChanged(userID: "alice")
        bar.unreadCountChanged(7)
        bar.sessionChanged(userID: "bob")
        #expect(bar.items.first { $0.tab == .profile }?.badge == nil)
        bar.unreadCountChanged(2)
        bar.sessionChanged(userID: "bob")
        #expect(bar.items.first { $0.tab == .profile }?.badge == "2")
    }

    @Test("TABS-03 the tab bar hides on pushed full-screen routes such as a product, and comes back on a tab")
    func hiddenOnFullScreenRoutes() {
        let bar = TabBarModel()
        #expect(bar.isVisible)
        bar.routeChanged(to: "/products/42")
        #expect(!bar.isVisible)
        bar.routeChanged(to: "/shop")
        #expect(bar.isVisible)
        #expect(bar.selectedTab == .shop)
        for path in ["/notifications", "/orders/42", "/nowhere"] {
            bar.routeChanged(to: path)
            #expect(!bar.isVisible, "\(path)")
        }
        bar.routeChanged(to: "/")
        #expect(bar.isVisible)
        #expect(bar.items.filter(\.isSelected).map(\.tab) == [.home])
    }
}
