#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Catalog {
    /// The category of service messages; it cannot be opted out of (PREFS-06).
    public static let accountCategoryID = "account"
    /// The type prefix never shown to app users.
    public static let adminPrefix = "admin"

    /// Where a tap leads when nothing better is known: the inbox.
    public static let inboxPath = "/notifications"

    /// The default catalog of DESIGN.md.
    public static let standard = Catalog(
        categories: [
            CatalogCategory(id: "orders", chip: "Orders", preferenceToggle: "Order updates"),
            CatalogCategory(id: "rewards", chip: "Rewards", preferenceToggle: "Loyalty & rewards"),
            CatalogCategory(id: "promotions", chip: "Promotions", preferenceToggle: "Promotions & offers"),
            CatalogCategory(id: "reminders", chip: "Reminders", preferenceToggle: "Expiry reminders"),
            CatalogCategory(id: accountCategoryID, chip: "Account", preferenceToggle: nil),
        ],
        types: [
            CatalogTypeRule(
                prefix: "order", category: "orders", route: TapRoute(path: "/orders/{orderId}", fallbackPath: "/orders")
            ),
            CatalogTypeRule(
                prefix: "payment", category: "orders",
                route: TapRoute(path: "/orders/{orderId}", fallbackPath: "/orders")),
            CatalogTypeRule(prefix: "loyalty", category: "rewards", route: TapRoute(path: "/loyalty")),
            CatalogTypeRule(prefix: "reward", category: "rewards", route: TapRoute(path: "/loyalty")),
            CatalogTypeRule(prefix: "campaign", category: "rewards", route: TapRoute(path: "/loyalty")),
            CatalogTypeRule(prefix: "voucher", category: "rewards", route: TapRoute(path: "/discounts")),
            CatalogTypeRule(
                prefix: "promo", category: "promotions",
                route: TapRoute(path: "/products/{productId}", fallbackPath: "/")),
            CatalogTypeRule(prefix: "reminder", category: "reminders", route: TapRoute(path: inboxPath)),
            CatalogTypeRule(prefix: "expiry", category: "reminders", route: TapRoute(path: inboxPath)),
            CatalogTypeRule(prefix: "account", category: accountCategoryID, route: TapRoute(path: inboxPath)),
            CatalogTypeRule(prefix: "system", category: nil, route: TapRoute(path: "/")),
            CatalogTypeRule(prefix: "announcement", category: nil, route: TapRoute(path: "/")),
            CatalogTypeRule(prefix: "general", category: nil, route: TapRoute(path: inboxPath)),
            CatalogTypeRule(prefix: "error", category: nil, route: TapRoute(path: inboxPath)),
            CatalogTypeRule(prefix: "admin", category: nil, hidden: true, route: nil),
        ]
    )
}
