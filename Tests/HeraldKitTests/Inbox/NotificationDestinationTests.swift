import HeraldKit
import HeraldModel
import Testing

@Suite("Notification destination")
struct NotificationDestinationTests {
    private func resolve(
        _ type: String, data: [String: String] = [:], deepLink: String? = nil, hasDetail: Bool = false,
        id: String = "n1", allowed: [String] = ["myapp://", "/orders"]
    ) -> NotificationDestination {
        NotificationDestination.resolve(
            type: type, data: data, deepLink: deepLink, hasDetail: hasDetail, id: id, allowedPrefixes: allowed,
            catalog: .standard)
    }

    @Test("TAP-01 an allowlisted deep link wins over rich content and the typed route")
    func deepLinkWins() {
        #expect(
            resolve("order.shipped", data: ["orderId": "7"], deepLink: "myapp://promo/1", hasDetail: true)
                == .deepLink("myapp://promo/1"))
        #expect(resolve("general", deepLink: "/orders/5").path == "/orders/5")
    }

    @Test(
        "TAP-01 a deep link off the allowlist or unsafe is skipped",
        arguments: ["https://evil.example/x", "/profile", "myapp://orders/../admin", "myapp://orders/a b", ""])
    func rejectedDeepLinks(link: String) {
        #expect(resolve("order.shipped", data: ["orderId": "7"], deepLink: link) == .typed(path: "/orders/7"))
        #expect(resolve("order.shipped", deepLink: link, allowed: [""]) == .typed(path: "/orders"))
    }

    @Test("TAP-01 the route built from the type, after the detail page for rich content")
    func typedRoutes() {
        #expect(resolve("order.shipped", data: ["orderId": "7"]) == .typed(path: "/orders/7"))
        #expect(resolve("payment.failed") == .typed(path: "/orders"))
        #expect(resolve("loyalty.points").path == "/loyalty")
        #expect(resolve("reward.earned").path == "/loyalty")
        #expect(resolve("campaign.started").path == "/loyalty")
        #expect(resolve("voucher.expiring").path == "/discounts")
        #expect(resolve("promo.sale", data: ["productId": "p 1"]).path == "/products/p%201")
        #expect(resolve("promo.sale").path == "/")
        #expect(resolve("system.maintenance").path == "/")
        #expect(resolve("announcement").path == "/")
    }

    @Test("TAP-02 general, error, unknown and inbox-routed types resolve to the inbox")
    func inboxFallback() {
        for type in [
            "general", "error.sync", "mystery", "reminder.expiry", "expiry.soon", "account.security", "admin.x",
        ] {
            #expect(resolve(type) == .inbox)
        }
        #expect(NotificationDestination.inbox.path == "/notifications")
    }

    @Test("TAP-04 rich content opens the detail page, like an inbox tap; a valid deep link still wins")
    func detailForRichContent() {
        #expect(resolve("general", hasDetail: true, id: "abc") == .detail(id: "abc"))
        #expect(resolve("general", hasDetail: true, id: "abc").path == "/notifications/detail/abc")
        #expect(resolve("general", deepLink: "myapp://x", hasDetail: true) == .deepLink("myapp://x"))
        // Without an id there is no page to open.
        #expect(resolve("promo.sale", hasDetail: true, id: "") == .typed(path: "/"))
        // The id is one path segment.
        #expect(NotificationDestination.detailPath(id: "a/b?c") == "/notifications/detail/a%2Fb%3Fc")
        #expect(NotificationDestination.detailPath(id: "..") == "/notifications/detail/%2E%2E")
    }
}
