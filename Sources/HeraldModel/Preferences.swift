#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A user's notification preferences. They gate push only; the inbox shows everything.
public struct Preferences: Codable, Sendable, Equatable {
    public var globalEnabled: Bool
    /// The OS decision: `nil` while never asked.
    public var osPermissionGranted: Bool?
    /// Catalog category to enabled. A category missing here is enabled.
    public var categories: [String: Bool]
    /// Types (`promo.flash`) switched off one by one, including ones no toggle owns.
    public var disabledTypes: [String]
    public var quietHours: QuietHours?
    /// Pushes wait until then (but the account category's and time-sensitive or critical ones);
    /// `nil`, or a time gone by: not snoozed.
    public var snoozedUntil: Date?
    /// The user's daily digest: pushes marked for it wait for one summary at its time; `nil`
    /// (never set) is off.
    public var digest: DigestSettings?
    /// Ids of the sources (integrations) whose pushes the user muted; the inbox still shows them.
    public var mutedSources: [String]
    /// The user's IANA time zone, for the digest and `deliverAt` local times; `nil`: the newest
    /// device's, else UTC.
    public var timeZone: String?

    public init(
        globalEnabled: Bool = true, osPermissionGranted: Bool? = nil, categories: [String: Bool] = [:],
        disabledTypes: [String] = [], quietHours: QuietHours? = nil, snoozedUntil: Date? = nil,
        digest: DigestSettings? = nil, mutedSources: [String] = [], timeZone: String? = nil
    ) {
        self.snoozedUntil = snoozedUntil
        self.digest = digest
        self.mutedSources = mutedSources
        self.timeZone = timeZone
        self.globalEnabled = globalEnabled
        self.osPermissionGranted = osPermissionGranted
        self.categories = categories
        self.disabledTypes = disabledTypes
        self.quietHours = quietHours
    }

    // Always encode `osPermissionGranted`, `quietHours`, `snoozedUntil`, `digest` and `timeZone`,
    // as `null` when unset.
    enum CodingKeys: String, CodingKey {
        case globalEnabled, osPermissionGranted, categories, disabledTypes, quietHours, snoozedUntil, digest,
            mutedSources, timeZone
    }

    /// Reads what ``encode(to:)`` writes; the fields added after the first release may be absent
    /// (an older server's answer).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            globalEnabled: try container.decode(Bool.self, forKey: .globalEnabled),
            osPermissionGranted: try container.decodeIfPresent(Bool.self, forKey: .osPermissionGranted),
            categories: try container.decode([String: Bool].self, forKey: .categories),
            disabledTypes: try container.decode([String].self, forKey: .disabledTypes),
            quietHours: try container.decodeIfPresent(QuietHours.self, forKey: .quietHours),
            snoozedUntil: try container.decodeIfPresent(Date.self, forKey: .snoozedUntil),
            digest: try container.decodeIfPresent(DigestSettings.self, forKey: .digest),
            mutedSources: try container.decodeIfPresent([String].self, forKey: .mutedSources) ?? [],
            timeZone: try container.decodeIfPresent(String.self, forKey: .timeZone))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(globalEnabled, forKey: .globalEnabled)
        try container.encode(osPermissionGranted, forKey: .osPermissionGranted)
        try container.encode(categories, forKey: .categories)
        try container.encode(disabledTypes, forKey: .disabledTypes)
        try container.encode(quietHours, forKey: .quietHours)
        try container.encode(snoozedUntil, forKey: .snoozedUntil)
        try container.encode(digest, forKey: .digest)
        try container.encode(mutedSources, forKey: .mutedSources)
        try container.encode(timeZone, forKey: .timeZone)
    }
}

/// A user's daily digest: while `enabled`, pushes marked for the digest wait and go out as one
/// summary push at `localTime` (`HH:mm`) in the user's time zone.
public struct DigestSettings: Codable, Sendable, Equatable {
    public var enabled: Bool
    public var localTime: String

    public init(enabled: Bool, localTime: String) {
        self.enabled = enabled
        self.localTime = localTime
    }
}

/// One source a user has received notifications from (`GET /v1/me/sources`), for the
/// preferences screen's switches: its newest name, whether it is muted, and when it last sent.
public struct ReceivedSource: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var muted: Bool
    public var lastReceivedAt: Date

    public init(id: String, name: String, muted: Bool, lastReceivedAt: Date) {
        self.id = id
        self.name = name
        self.muted = muted
        self.lastReceivedAt = lastReceivedAt
    }
}

/// `GET /v1/me/sources`: most recently heard from first.
public struct ReceivedSources: Codable, Sendable, Equatable {
    public var items: [ReceivedSource]
    public init(items: [ReceivedSource]) { self.items = items }
}

/// A daily window in which pushes wait. `start` and `end` are `HH:mm` in `timeZone`;
/// a window whose end is before its start runs over midnight.
public struct QuietHours: Codable, Sendable, Equatable {
    public var start: String
    public var end: String
    /// IANA time zone name, e.g. `Europe/Amsterdam`.
    public var timeZone: String

    public init(start: String, end: String, timeZone: String) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }
}

/// `PATCH /v1/me/preferences`: every field optional; what it does not name is kept.
/// `quietHours: null` clears quiet hours, an absent `quietHours` keeps them.
public struct PreferencesPatch: Sendable, Equatable {
    public var globalEnabled: Bool?
    /// Merged key by key into the stored categories.
    public var categories: [String: Bool]?
    /// Replaces the stored list when present.
    public var disabledTypes: [String]?
    /// `.some(nil)` clears.
    public var quietHours: QuietHours??
    /// `.some(nil)` ends a snooze.
    public var snoozedUntil: Date??
    /// `.some(nil)` clears the digest (off).
    public var digest: DigestSettings??
    /// Replaces the stored list when present.
    public var mutedSources: [String]?
    /// `.some(nil)` forgets the time zone.
    public var timeZone: String??

    public init(
        globalEnabled: Bool? = nil, categories: [String: Bool]? = nil, disabledTypes: [String]? = nil,
        quietHours: QuietHours?? = nil, snoozedUntil: Date?? = nil, digest: DigestSettings?? = nil,
        mutedSources: [String]? = nil, timeZone: String?? = nil
    ) {
        self.snoozedUntil = snoozedUntil
        self.digest = digest
        self.mutedSources = mutedSources
        self.timeZone = timeZone
        self.globalEnabled = globalEnabled
        self.categories = categories
        self.disabledTypes = disabledTypes
        self.quietHours = quietHours
    }
}

/// `POST /v1/me/permission`: the OS answered the permission dialog.
public struct PermissionDecision: Codable, Sendable, Equatable {
    public var granted: Bool
    public init(granted: Bool) { self.granted = granted }
}

/// The OS permission status the app read at start-up.
public enum PermissionStatus: String, Codable, Sendable, Equatable {
    case granted, denied, undetermined
}

/// `POST /v1/me/permission/sync`.
public struct PermissionSync: Codable, Sendable, Equatable {
    public var status: PermissionStatus
    public init(status: PermissionStatus) { self.status = status }
}
