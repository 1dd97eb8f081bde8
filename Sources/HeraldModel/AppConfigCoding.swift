#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// `PUT /v1/app-config` replaces the whole document, so a misspelt key must not decode to
// "nothing set" and wipe the policy: every level rejects keys it does not know.

extension AppConfigDocument {
    private enum Keys: String, CodingKey, CaseIterable {
        case update, deepLinks, catalog, frequencyCaps, digestCategories, digestTemplate
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: Keys.allCases.map(\.rawValue), type: "app config")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            update: try container.decodeIfPresent(UpdatePolicy.self, forKey: .update),
            deepLinks: try container.decodeIfPresent(DeepLinkPolicy.self, forKey: .deepLinks),
            catalog: try container.decodeIfPresent(Catalog.self, forKey: .catalog),
            frequencyCaps: try container.decodeIfPresent([FrequencyCap].self, forKey: .frequencyCaps),
            digestCategories: try container.decodeIfPresent([String].self, forKey: .digestCategories),
            digestTemplate: try container.decodeIfPresent(DigestTemplate.self, forKey: .digestTemplate))
    }
}

extension FrequencyCap {
    private enum Keys: String, CodingKey, CaseIterable { case category, max, periodSeconds }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: Keys.allCases.map(\.rawValue), type: "frequency cap")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            category: try container.decode(String.self, forKey: .category),
            max: try container.decode(Int.self, forKey: .max),
            periodSeconds: try container.decode(Int.self, forKey: .periodSeconds))
    }
}

extension DigestTemplate {
    private enum Keys: String, CodingKey, CaseIterable { case title, body }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: Keys.allCases.map(\.rawValue), type: "digest template")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            title: try container.decode(String.self, forKey: .title),
            body: try container.decode(String.self, forKey: .body))
    }
}

extension UpdatePolicy {
    private enum Keys: String, CodingKey { case ios, android }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: ["ios", "android"], type: "update policy")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            ios: try container.decodeIfPresent(PlatformUpdatePolicy.self, forKey: .ios),
            android: try container.decodeIfPresent(PlatformUpdatePolicy.self, forKey: .android))
    }
}

extension PlatformUpdatePolicy {
    private enum Keys: String, CodingKey { case minimumVersion, storeURL, sideloadPrompt }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(
            unknownIn: decoder, allowed: ["minimumVersion", "storeURL", "sideloadPrompt"],
            type: "platform update policy")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            minimumVersion: try container.decodeIfPresent(String.self, forKey: .minimumVersion),
            storeURL: try container.decodeIfPresent(String.self, forKey: .storeURL),
            sideloadPrompt: try container.decodeIfPresent(Bool.self, forKey: .sideloadPrompt))
    }
}

extension DeepLinkPolicy {
    private enum Keys: String, CodingKey { case allowedPrefixes }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: ["allowedPrefixes"], type: "deep-link policy")
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(allowedPrefixes: try container.decode([String].self, forKey: .allowedPrefixes))
    }
}
