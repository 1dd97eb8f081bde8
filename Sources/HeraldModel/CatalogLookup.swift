#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Catalog {
    /// The prefix of a dotted type: `order` of `order.shipped`, `order` of `order`.
    public static func prefix(ofType type: String) -> Substring {
        type.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(type)
    }

    /// The rule of `type`, matched by its prefix; `nil` for an unknown type.
    public func rule(forType type: String) -> CatalogTypeRule? {
        let prefix = Catalog.prefix(ofType: type)
        return types.first { $0.prefix == prefix }
    }

    /// The category of `type`; `nil` for types shown under All only and unknown types.
    public func category(forType type: String) -> String? {
        rule(forType: type)?.category
    }

    /// Whether `type` is never shown to app users (`admin.*`).
    /// `admin.*` types are hidden whatever a published catalog says.
    public func isHidden(type: String) -> Bool {
        Catalog.prefix(ofType: type) == Catalog.adminPrefix || (rule(forType: type)?.hidden ?? false)
    }

    /// The category with this id.
    public func category(id: String) -> CatalogCategory? {
        categories.first { $0.id == id }
    }

    /// The categories a user can switch off, in catalog order.
    public var optOutCategoryIDs: [String] {
        categories.filter(\.canOptOut).map(\.id)
    }

    /// Whether the user may switch pushes of category `id` off. Unknown ids and the
    /// account category cannot be.
    public func canOptOut(category id: String) -> Bool {
        category(id: id)?.canOptOut ?? false
    }

    /// The in-app path a tap on a notification of `type` leads to. `{key}` placeholders
    /// are filled from `data` (percent-encoded as one path segment); when one is missing
    /// or empty the route's fallback is used. General, unknown and hidden types lead to
    /// the inbox (TAP-02).
    public func tapPath(type: String, data: [String: String]) -> String {
        guard let route = rule(forType: type)?.route else { return Catalog.inboxPath }
        if let filled = TapRoute.fill(route.path, from: data) { return filled }
        return route.fallbackPath ?? Catalog.inboxPath
    }
}

extension TapRoute {
    /// `template` with each `{key}` replaced by `data[key]`; `nil` when a value is missing or empty.
    static func fill(_ template: String, from data: [String: String]) -> String? {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[rest.startIndex..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                result += rest[open...]
                return result
            }
            let key = String(rest[rest.index(after: open)..<close])
            guard let value = data[key], !value.isEmpty else { return nil }
            result += percentEncodedSegment(value)
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    /// Keeps only RFC 3986 unreserved characters; everything else (`/`, `?`, `#`, `%`, spaces) is escaped.
    static func percentEncodedSegment(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            if Check.isASCIIAlnum(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // A segment of only dots would climb the path.
        if out == "." || out == ".." { return out.replacingLiteral(".", with: "%2E") }
        return out
    }

    /// The `{key}` names in `path`, or `nil` when its braces are unbalanced or a name is not `[A-Za-z0-9_]+`.
    static func placeholders(in path: String) -> [String]? {
        var names: [String] = []
        var current: String?
        for character in path {
            switch character {
            case "{":
                if current != nil { return nil }
                current = ""
            case "}":
                guard let name = current, !name.isEmpty else { return nil }
                names.append(name)
                current = nil
            default:
                if current != nil {
                    guard character.isASCII, character.isLetter || character.isNumber || character == "_" else {
                        return nil
                    }
                    current?.append(character)
                }
            }
        }
        return current == nil ? names : nil
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
