import Foundation

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

    public init(
        globalEnabled: Bool = true, osPermissionGranted: Bool? = nil, categories: [String: Bool] = [:],
        disabledTypes: [String] = [], quietHours: QuietHours? = nil, snoozedUntil: Date? = nil
    ) {
        self.snoozedUntil = snoozedUntil
        self.globalEnabled = globalEnabled
        self.osPermissionGranted = osPermissionGranted
        self.categories = categories
        self.disabledTypes = disabledTypes
        self.quietHours = quietHours
    }

    // Always encode `osPermissionGranted`, `quietHours` and `snoozedUntil`, as `null` when unset.
    enum CodingKeys: String, CodingKey {
        case globalEnabled, osPermissionGranted, categories, disabledTypes, quietHours, snoozedUntil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(globalEnabled, forKey: .globalEnabled)
        try container.encode(osPermissionGranted, forKey: .osPermissionGranted)
        try container.encode(categories, forKey: .categories)
        try container.encode(disabledTypes, forKey: .disabledTypes)
        try container.encode(quietHours, forKey: .quietHours)
        try container.encode(snoozedUntil, forKey: .snoozedUntil)
    }
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

    public init(
        globalEnabled: Bool? = nil, categories: [String: Bool]? = nil, disabledTypes: [String]? = nil,
        quietHours: QuietHours?? = nil, snoozedUntil: Date?? = nil
    ) {
        self.snoozedUntil = snoozedUntil
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
