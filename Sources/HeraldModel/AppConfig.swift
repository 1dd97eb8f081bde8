#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The minimum-version policy of one platform.
public struct PlatformUpdatePolicy: Codable, Sendable, Equatable {
    /// Installed versions below this (semantic version) are asked to update.
    public var minimumVersion: String?
    /// Where Update Now leads.
    public var storeURL: String?
    /// Android: ask sideloaded installs to install from the Play Store.
    public var sideloadPrompt: Bool?

    public init(minimumVersion: String? = nil, storeURL: String? = nil, sideloadPrompt: Bool? = nil) {
        self.minimumVersion = minimumVersion
        self.storeURL = storeURL
        self.sideloadPrompt = sideloadPrompt
    }
}

/// Update policy per platform; a missing platform has no policy.
public struct UpdatePolicy: Codable, Sendable, Equatable {
    public var ios: PlatformUpdatePolicy?
    public var android: PlatformUpdatePolicy?
    public init(ios: PlatformUpdatePolicy? = nil, android: PlatformUpdatePolicy? = nil) {
        self.ios = ios
        self.android = android
    }
}

/// Deep links the app may open: a link is allowed when it starts with one of the prefixes.
public struct DeepLinkPolicy: Codable, Sendable, Equatable {
    public var allowedPrefixes: [String]
    public init(allowedPrefixes: [String]) { self.allowedPrefixes = allowedPrefixes }
}

/// What publishers store with `PUT /v1/app-config`.
public struct AppConfigDocument: Codable, Sendable, Equatable {
    public var update: UpdatePolicy?
    public var deepLinks: DeepLinkPolicy?
    /// `nil` means the default catalog.
    public var catalog: Catalog?
    /// At most `max` pushes of a category per user in any `periodSeconds`; one over is skipped
    /// (`throttled`), or held for the user's digest when they have one on.
    public var frequencyCaps: [FrequencyCap]?
    /// Categories whose pushes wait for the user's digest while it is on (as `push.digest: true`).
    public var digestCategories: [String]?
    /// The summary push of a digest; `nil`: ``DigestTemplate/standard``.
    public var digestTemplate: DigestTemplate?

    public init(
        update: UpdatePolicy? = nil, deepLinks: DeepLinkPolicy? = nil, catalog: Catalog? = nil,
        frequencyCaps: [FrequencyCap]? = nil, digestCategories: [String]? = nil, digestTemplate: DigestTemplate? = nil
    ) {
        self.update = update
        self.deepLinks = deepLinks
        self.catalog = catalog
        self.frequencyCaps = frequencyCaps
        self.digestCategories = digestCategories
        self.digestTemplate = digestTemplate
    }
}

/// A frequency cap: at most `max` pushes of `category` per user in any `periodSeconds`.
public struct FrequencyCap: Codable, Sendable, Equatable {
    public var category: String
    public var max: Int
    public var periodSeconds: Int

    public init(category: String, max: Int, periodSeconds: Int) {
        self.category = category
        self.max = max
        self.periodSeconds = periodSeconds
    }
}

/// The title and body of a digest's summary push. `{count}` becomes the number of notifications it
/// sums up and `{titles}` the newest titles (at most three, newest first, joined by ", ").
public struct DigestTemplate: Codable, Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }

    public static let standard = DigestTemplate(title: "Your daily digest", body: "{count} new: {titles}")

    /// How many of the newest titles `{titles}` lists.
    public static let titlesShown = 3

    /// The template with `{count}` and `{titles}` filled in.
    public func rendered(count: Int, titles: [String]) -> (title: String, body: String) {
        func fill(_ text: String) -> String {
            text.replacingLiteral("{count}", with: String(count))
                .replacingLiteral("{titles}", with: titles.prefix(Self.titlesShown).joined(separator: ", "))
        }
        return (fill(title), fill(body))
    }
}

/// The update decision for one installed app.
public struct UpdateDecision: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Up to date.
        case none
        /// Installed version is below the minimum.
        case version
        /// Sideloaded Android install: install from the Play Store.
        case store
    }

    public var kind: Kind
    public var minimumVersion: String?
    public var storeURL: String?

    public init(kind: Kind, minimumVersion: String? = nil, storeURL: String? = nil) {
        self.kind = kind
        self.minimumVersion = minimumVersion
        self.storeURL = storeURL
    }
}

/// `GET /v1/app-config?platform=&version=&installSource=`.
/// `update` is `null` when there is no policy for the platform (the app hides the prompt).
public struct AppConfigResponse: Codable, Sendable, Equatable {
    public var update: UpdateDecision?
    public var deepLinks: DeepLinkPolicy
    public var catalog: Catalog

    public init(update: UpdateDecision?, deepLinks: DeepLinkPolicy, catalog: Catalog) {
        self.update = update
        self.deepLinks = deepLinks
        self.catalog = catalog
    }

    enum CodingKeys: String, CodingKey { case update, deepLinks, catalog }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(update, forKey: .update)
        try container.encode(deepLinks, forKey: .deepLinks)
        try container.encode(catalog, forKey: .catalog)
    }
}

/// The answer of every error: `{"error":{"code":"...","message":"..."}}`.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public struct Body: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Body
    public init(code: String, message: String) { self.error = Body(code: code, message: message) }
}
