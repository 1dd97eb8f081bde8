import HeraldKit
import HeraldModel
import Testing

@Suite("Push tap: where a tap leads")
@MainActor struct PushTapDestinationTests {
    static let allowed = ["myapp://orders/", "/loyalty"]

    static func route(
        _ type: String, data: [String: String] = [:], deepLink: String? = nil, hasDetail: Bool = false
    ) -> NotificationDestination {
        NotificationDestination(
            tap: PushTap(notificationId: "n-1", type: type, deepLink: deepLink, hasDetail: hasDetail, data: data),
            catalog: .standard, allowedPrefixes: allowed)
    }

    @Test(
        "TAP-01 a push without deep link or rich content routes to the screen of its type",
        arguments: [
            ("order.shipped", ["orderId": "o-7"], "/orders/o-7"),
            ("order.shipped", [:], "/orders"),
            ("payment.failed", ["orderId": "o 8/9"], "/orders/o%208%2F9"),
            ("payment.refunded", [:], "/orders"),
            ("loyalty.points", [:], "/loyalty"),
            ("reward.unlocked", [:], "/loyalty"),
            ("campaign.started", [:], "/loyalty"),
            ("voucher.issued", [:], "/discounts"),
            ("promo.flash", ["productId": "p-3"], "/products/p-3"),
            ("promo.flash", [:], "/"),
            ("system.maintenance", [:], "/"),
            ("announcement", [:], "/"),
            ("general", [:], "/notifications"),
            ("error.sync", [:], "/notifications"),
        ])
    func typedRoutes(type: String, data: [String: String], path: String) {
        let expected: NotificationDestination = path == "/notifications" ? .inbox : .typed(path: path)
        #expect(Self.route(type, data: data) == expected)
        #expect(Self.route(type, data: data).path == path)
    }

    @Test("TAP-01 an allowlisted deep link wins over rich content and the type")
    func allowlistedDeepLinkWins() {
        let route = Self.route("promo.flash", data: ["productId": "p-3"], deepLink: "/loyalty/tiers", hasDetail: true)
        #expect(route == .deepLink("/loyalty/tiers"))
        #expect(route.path == "/loyalty/tiers")
    }

    @Test("TAP-01 a deep link outside the allowlist is ignored")
    func foreignDeepLinkIgnored() {
        #expect(Self.route("order.shipped", deepLink: "https://evil.example/orders/1") == .typed(path: "/orders"))
        #expect(
            Self.route("order.shipped", deepLink: "myapp://payments/1", hasDetail: true)
                == .detail(id: "n-1"))
        let noPrefixes = NotificationDestination(
            tap: PushTap(notificationId: "n-1", type: "general", deepLink: "/loyalty"), catalog: .standard,
            allowedPrefixes: [""])
        #expect(noPrefixes == .inbox, "an empty prefix allows nothing")
    }

    @Test("TAP-02 general and unknown types fall back to the inbox")
    func inboxFallback() {
        #expect(Self.route("general").path == "/notifications")
        #expect(Self.route("shipment.tracking", data: ["orderId": "o-1"]).path == "/notifications")
        #expect(Self.route("admin.audit").path == "/notifications")
    }

    @Test("TAP-04 rich content opens the detail page, like an inbox tap")
    func richContentOpensDetail() {
        let route = Self.route("order.shipped", data: ["orderId": "o-7"], hasDetail: true)
        #expect(route == .detail(id: "n-1"))
        #expect(route.path == "/notifications/detail/n-1")
        #expect(NotificationDestination.detailPath(id: "a/b c") == "/notifications/detail/a%2Fb%20c")
    }

    @Test("TAP-04 a valid deep link still wins over the detail page")
    func deepLinkBeatsDetail() {
        #expect(
            Self.route("order.shipped", deepLink: "myapp://orders/o-7", hasDetail: true)
                == .deepLink("myapp://orders/o-7"))
    }
}
