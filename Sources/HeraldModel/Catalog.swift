#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The category catalog: which types belong to which inbox chip and preference toggle,
/// and where a tap on them leads. Configurable through app-config; ``Catalog/standard`` is the default.
public struct Catalog: Codable, Sendable, Equatable {
    public var categories: [CatalogCategory]
    public var types: [CatalogTypeRule]

    public init(categories: [CatalogCategory], types: [CatalogTypeRule]) {
        self.categories = categories
        self.types = types
    }
}

/// One catalog category (`orders`), its chip and its preference toggle.
public struct CatalogCategory: Codable, Sendable, Equatable {
    public var id: String
    /// Inbox chip label, e.g. `Orders`.
    public var chip: String
    /// Preference toggle label; `nil` for a category that cannot be opted out of.
    public var preferenceToggle: String?

    public init(id: String, chip: String, preferenceToggle: String?) {
        self.id = id
        self.chip = chip
        self.preferenceToggle = preferenceToggle
    }

    /// Whether the user can switch this category's pushes off: a category with a toggle,
    /// and never the account category (PREFS-06).
    public var canOptOut: Bool { preferenceToggle != nil && id != Catalog.accountCategoryID }
}

/// Maps a type prefix (`order` of `order.shipped`) to its category and tap route.
public struct CatalogTypeRule: Codable, Sendable, Equatable {
    public var prefix: String
    /// `nil` for types shown under All only.
    public var category: String?
    /// Never shown to app users (`admin`).
    public var hidden: Bool
    /// Where a tap leads.
    public var route: TapRoute?

    public init(prefix: String, category: String?, hidden: Bool = false, route: TapRoute?) {
        self.prefix = prefix
        self.category = category
        self.hidden = hidden
        self.route = route
    }
}

/// A tap destination: `path` with `{key}` placeholders filled from the notification's `data`,
/// or `fallbackPath` when a placeholder has no value.
public struct TapRoute: Codable, Sendable, Equatable {
    public var path: String
    public var fallbackPath: String?

    public init(path: String, fallbackPath: String? = nil) {
        self.path = path
        self.fallbackPath = fallbackPath
    }
}
