import Foundation
import HeraldModel
import Testing

@Suite("Catalog")
struct CatalogTests {
    let catalog = Catalog.standard

    @Test("standard catalog chips are Orders, Rewards, Promotions, Reminders, Account (the INBOX-06 chips)")
    func chips() {
        #expect(catalog.categories.map(\.chip) == ["Orders", "Rewards", "Promotions", "Reminders", "Account"])
        #expect(
            catalog.categories.map(\.preferenceToggle) == [
                "Order updates", "Loyalty & rewards", "Promotions & offers", "Expiry reminders", nil,
            ])
    }

    @Test("standard catalog maps type prefixes to categories")
    func categories() {
        let expected: [String: String?] = [
            "order.shipped": "orders", "payment.failed": "orders", "loyalty.points": "rewards",
            "reward.earned": "rewards", "campaign.started": "rewards", "voucher.expiring": "rewards",
            "promo.flash": "promotions", "reminder.cart": "reminders", "expiry.points": "reminders",
            "account.password_changed": "account", "system.maintenance": nil, "announcement.new": nil,
            "general": nil, "error.sync": nil, "order": "orders",
        ]
        for (type, category) in expected {
            #expect(catalog.rule(forType: type) != nil, "\(type)")
            #expect(catalog.category(forType: type) == category, "\(type)")
        }
    }

    @Test("unknown types and lookalike prefixes have no rule and no category (All only, as INBOX-10)")
    func unknownTypes() {
        for type in ["ordering.x", "unknown.type", "", "orders.shipped", "Order.shipped", ".order"] {
            #expect(catalog.rule(forType: type) == nil, "\(type)")
            #expect(catalog.category(forType: type) == nil, "\(type)")
        }
    }

    @Test("admin types are hidden, others are not (the INBOX-11 filter)")
    func hidden() {
        #expect(catalog.isHidden(type: "admin.audit"))
        #expect(catalog.isHidden(type: "admin"))
        #expect(!catalog.isHidden(type: "administrator.x"))
        #expect(!catalog.isHidden(type: "order.shipped"))
        #expect(!catalog.isHidden(type: "unknown"))
    }

    @Test("category lookup by id and the opt-out list")
    func lookups() {
        #expect(catalog.category(id: "orders")?.chip == "Orders")
        #expect(catalog.category(id: "nope") == nil)
        #expect(catalog.optOutCategoryIDs == ["orders", "rewards", "promotions", "reminders"])
        #expect(catalog.category(id: "account")?.canOptOut == false)
        #expect(!catalog.canOptOut(category: "account"))
        #expect(!catalog.canOptOut(category: "missing"))
        #expect(catalog.canOptOut(category: "promotions"))
    }

    @Test("tap paths follow the type, filling placeholders from data (the TAP-01 route table)")
    func tapPaths() {
        #expect(catalog.tapPath(type: "order.shipped", data: ["orderId": "123"]) == "/orders/123")
        #expect(catalog.tapPath(type: "payment.failed", data: ["orderId": "A-9"]) == "/orders/A-9")
        #expect(catalog.tapPath(type: "order.shipped", data: [:]) == "/orders")
        #expect(catalog.tapPath(type: "order.shipped", data: ["orderId": ""]) == "/orders")
        #expect(catalog.tapPath(type: "loyalty.points", data: [:]) == "/loyalty")
        #expect(catalog.tapPath(type: "reward.earned", data: [:]) == "/loyalty")
        #expect(catalog.tapPath(type: "campaign.x", data: [:]) == "/loyalty")
        #expect(catalog.tapPath(type: "voucher.new", data: [:]) == "/discounts")
        #expect(catalog.tapPath(type: "promo.flash", data: ["productId": "p1"]) == "/products/p1")
        #expect(catalog.tapPath(type: "promo.flash", data: [:]) == "/")
        #expect(catalog.tapPath(type: "reminder.cart", data: [:]) == "/notifications")
        #expect(catalog.tapPath(type: "expiry.points", data: [:]) == "/notifications")
        #expect(catalog.tapPath(type: "account.login", data: [:]) == "/notifications")
        #expect(catalog.tapPath(type: "system.update", data: [:]) == "/")
        #expect(catalog.tapPath(type: "announcement", data: [:]) == "/")
        #expect(catalog.tapPath(type: "error.x", data: [:]) == "/notifications")
    }

    @Test("general, unknown and hidden types fall back to the inbox (TAP-02 routes)")
    func fallbackToInbox() {
        #expect(catalog.tapPath(type: "general", data: [:]) == "/notifications")
        #expect(catalog.tapPath(type: "mystery.type", data: ["orderId": "1"]) == "/notifications")
        #expect(catalog.tapPath(type: "admin.secret", data: [:]) == "/notifications")
    }

    @Test("placeholder values are escaped as one path segment")
    func escapedPlaceholders() {
        #expect(catalog.tapPath(type: "order.x", data: ["orderId": "a/b c?d#e"]) == "/orders/a%2Fb%20c%3Fd%23e")
        #expect(catalog.tapPath(type: "order.x", data: ["orderId": ".."]) == "/orders/%2E%2E")
        #expect(catalog.tapPath(type: "order.x", data: ["orderId": "é"]) == "/orders/%C3%A9")
    }

    @Test("the standard catalog is valid")
    func standardIsValid() throws {
        try Catalog.standard.validate()
    }

    @Test("catalog validation names what is wrong")
    func validation() {
        var duplicateCategory = Catalog.standard
        duplicateCategory.categories.append(CatalogCategory(id: "orders", chip: "Again", preferenceToggle: "x"))
        expectInvalid("duplicate", field: "catalog.categories[5].id") { try duplicateCategory.validate() }

        var duplicatePrefix = Catalog.standard
        duplicatePrefix.types.append(CatalogTypeRule(prefix: "order", category: nil, route: nil))
        expectInvalid("duplicate", field: "catalog.types[15].prefix") { try duplicatePrefix.validate() }

        var missingCategory = Catalog.standard
        missingCategory.types.append(CatalogTypeRule(prefix: "ship", category: "shipping", route: nil))
        expectInvalid("unknown_category", field: "catalog.types[15].category") { try missingCategory.validate() }

        var accountToggle = Catalog.standard
        accountToggle.categories[4].preferenceToggle = "Account messages"
        expectInvalid("invalid", field: "catalog.categories[4].preferenceToggle") { try accountToggle.validate() }

        var badRoute = Catalog.standard
        badRoute.types[0].route = TapRoute(path: "orders/{orderId}")
        expectInvalid("invalid", field: "catalog.types[0].route.path") { try badRoute.validate() }

        var badPlaceholder = Catalog.standard
        badPlaceholder.types[0].route = TapRoute(path: "/orders/{order id}")
        expectInvalid("invalid", field: "catalog.types[0].route.path") { try badPlaceholder.validate() }

        var dottedPrefix = Catalog.standard
        dottedPrefix.types[0].prefix = "order.shipped"
        expectInvalid("invalid", field: "catalog.types[0].prefix") { try dottedPrefix.validate() }

        let tooMany = Catalog(
            categories: (0...Limits.catalogCategoriesMax).map {
                CatalogCategory(id: "c\($0)", chip: "C", preferenceToggle: "T")
            },
            types: [])
        expectInvalid("too_many", field: "catalog.categories") { try tooMany.validate() }

        let tooManyRules = Catalog(
            categories: [],
            types: (0...Limits.catalogRulesMax).map { CatalogTypeRule(prefix: "t\($0)", category: nil, route: nil) })
        expectInvalid("too_many", field: "catalog.types") { try tooManyRules.validate() }

        var longChip = Catalog.standard
        longChip.categories[0].chip = String(repeating: "x", count: Limits.chipMaxLength + 1)
        expectInvalid("too_long", field: "catalog.categories[0].chip") { try longChip.validate() }
    }

    @Test("catalog round-trips through JSON")
    func codable() throws {
        let data = try JSONEncoder().encode(Catalog.standard)
        #expect(try JSONDecoder().decode(Catalog.self, from: data) == Catalog.standard)
    }
}
