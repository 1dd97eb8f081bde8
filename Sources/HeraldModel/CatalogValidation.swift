#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Catalog {
    /// Checks a catalog a publisher supplies: at most ``Limits/catalogCategoriesMax`` categories
    /// and ``Limits/catalogRulesMax`` rules; unique, well-formed category ids and prefixes;
    /// every rule's category exists; labels within their lengths; routes are in-app paths
    /// with well-formed `{key}` placeholders; the account category has no toggle.
    public func validate() throws {
        try validate(field: "catalog")
    }

    func validate(field: String) throws {
        if categories.count > Limits.catalogCategoriesMax {
            throw ValidationError.tooMany("\(field).categories", max: Limits.catalogCategoriesMax, what: "categories")
        }
        if types.count > Limits.catalogRulesMax {
            throw ValidationError.tooMany("\(field).types", max: Limits.catalogRulesMax, what: "type rules")
        }
        var ids: Set<String> = []
        for (index, category) in categories.enumerated() {
            let at = "\(field).categories[\(index)]"
            try Check.maxLength(category.id, "\(at).id", Limits.categoryIdMaxLength)
            guard Catalog.isIdentifier(category.id) else {
                throw ValidationError.invalid("\(at).id", "must be lowercase letters, digits and _, such as orders.")
            }
            guard ids.insert(category.id).inserted else {
                throw ValidationError(
                    field: "\(at).id", code: "duplicate", message: "\(at).id '\(category.id)' appears more than once.")
            }
            try Check.requiredText(category.chip, "\(at).chip", max: Limits.chipMaxLength)
            if let toggle = category.preferenceToggle {
                if category.id == Catalog.accountCategoryID {
                    throw ValidationError.invalid(
                        "\(at).preferenceToggle", "must be null: the account category cannot be opted out of.")
                }
                try Check.requiredText(toggle, "\(at).preferenceToggle", max: Limits.preferenceToggleMaxLength)
            }
        }
        var prefixes: Set<String> = []
        for (index, rule) in types.enumerated() {
            let at = "\(field).types[\(index)]"
            try Check.maxLength(rule.prefix, "\(at).prefix", Limits.typeMaxLength)
            guard Catalog.isIdentifier(rule.prefix) else {
                throw ValidationError.invalid(
                    "\(at).prefix", "must be the part of a type before its first dot: lowercase letters, digits and _.")
            }
            guard prefixes.insert(rule.prefix).inserted else {
                throw ValidationError(
                    field: "\(at).prefix", code: "duplicate",
                    message: "\(at).prefix '\(rule.prefix)' appears more than once.")
            }
            if rule.prefix == Catalog.adminPrefix, !rule.hidden {
                throw ValidationError.invalid("\(at).hidden", "must be true: admin types are never shown to app users.")
            }
            if rule.prefix == Catalog.accountCategoryID, rule.category != Catalog.accountCategoryID {
                throw ValidationError.invalid(
                    "\(at).category", "must be account: account messages cannot be opted out of.")
            }
            if let category = rule.category, !ids.contains(category) {
                throw ValidationError(
                    field: "\(at).category", code: "unknown_category",
                    message: "\(at).category '\(category)' is not one of the catalog's categories.")
            }
            if let route = rule.route {
                try Catalog.validateRoutePath(route.path, "\(at).route.path")
                if let fallback = route.fallbackPath {
                    try Catalog.validateRoutePath(fallback, "\(at).route.fallbackPath")
                    if TapRoute.placeholders(in: fallback)?.isEmpty != true {
                        throw ValidationError.invalid("\(at).route.fallbackPath", "must not contain {placeholders}.")
                    }
                }
            }
        }
    }

    static func validateRoutePath(_ path: String, _ field: String) throws {
        try Check.appPath(path, field)
        if TapRoute.placeholders(in: path) == nil {
            throw ValidationError.invalid(
                field, "has a malformed {placeholder}: use {name} with letters, digits and _.")
        }
    }

    /// `[a-z0-9_]+`.
    static func isIdentifier(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { Check.isLowerAlnum($0) || $0 == UInt8(ascii: "_") }
    }
}
