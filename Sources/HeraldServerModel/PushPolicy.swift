import FoundationEssentials
import HeraldModel

/// What to do with one push for one user.
public enum PushDecision: Sendable, Equatable {
    case send
    case skip(reason: PushSkipReason)
    /// Quiet hours or a snooze: send at `until`, when the window (or the snooze) ends;
    /// `snoozed` when the snooze is what holds it (ending the snooze early releases it).
    case `defer`(until: Date, snoozed: Bool = false)
    /// Held for the user's digest, whose summary goes out at `at`.
    case digest(at: Date)
}

/// Why a push was not sent; recorded on the delivery.
public enum PushSkipReason: String, Codable, Sendable, Equatable, CaseIterable {
    /// The user's master switch is off.
    case globalOff = "global_off"
    /// The OS permission was denied.
    case osDenied = "os_denied"
    /// The user switched the notification's category off.
    case categoryOff = "category_off"
    /// The user switched this type off.
    case typeDisabled = "type_disabled"
    /// The user muted the notification's source.
    case sourceMuted = "source_muted"
    /// Over the app's frequency cap for its category (and the user has no digest to hold it).
    case throttled
}

/// What the push policy needs beyond the user's preferences: the catalog and the app config's
/// attention rules (frequency caps, digest categories).
public struct PushRules: Sendable, Equatable {
    public var catalog: Catalog
    public var frequencyCaps: [FrequencyCap]
    public var digestCategories: Set<String>

    public init(catalog: Catalog, frequencyCaps: [FrequencyCap] = [], digestCategories: Set<String> = []) {
        self.catalog = catalog
        self.frequencyCaps = frequencyCaps
        self.digestCategories = digestCategories
    }

    /// The rules an app-config document sets (its catalog, else the standard one).
    public init(_ document: AppConfigDocument) {
        self.init(
            catalog: document.catalog ?? .standard, frequencyCaps: document.frequencyCaps ?? [],
            digestCategories: Set(document.digestCategories ?? []))
    }

    /// The cap on `category`, if any (never on the account category).
    public func cap(for category: String?) -> FrequencyCap? {
        guard let category, category != Catalog.accountCategoryID else { return nil }
        return frequencyCaps.first { $0.category == category }
    }
}

/// What one push asks of the policy beyond its type and category.
public struct PushCircumstances: Sendable, Equatable {
    /// `push.interruptionLevel`: time-sensitive and critical pushes pass a snooze.
    public var interruptionLevel: String?
    /// The notification's source id (a muted one is skipped).
    public var sourceID: String?
    /// `push.digest: true`, or a category the app config lists in `digestCategories`.
    public var digestEligible: Bool
    /// The user already had the cap's `max` pushes of this category in its period.
    public var overCap: Bool
    /// The user's time zone, for the digest time.
    public var timeZone: TimeZone

    public init(
        interruptionLevel: String? = nil, sourceID: String? = nil, digestEligible: Bool = false,
        overCap: Bool = false, timeZone: TimeZone = .gmt
    ) {
        self.interruptionLevel = interruptionLevel
        self.sourceID = sourceID
        self.digestEligible = digestEligible
        self.overCap = overCap
        self.timeZone = timeZone
    }
}

/// The server's push policy, pure so it can be tested and reused by every delivery path.
public enum PushPolicy {
    /// Decides whether a push of `type` (in `category`, as the catalog assigned it) goes out
    /// now, later or never.
    ///
    /// In order: the master switch must be on; the OS permission must not be denied
    /// (`nil`, never asked, does not block); the category must not be switched off, the
    /// type must not be disabled and the source must not be muted (all three ignored for a
    /// category that cannot be opted out of, such as account, PREFS-06). Then, for such
    /// categories too but never the account category: a push the digest takes (digest-eligible)
    /// is held for the user's digest while it is on; one over its frequency cap goes into the
    /// digest when the user has one on, else is skipped (`throttled`). While the user snoozes,
    /// the push waits until the snooze ends, unless it is of an exempt category or
    /// `interruptionLevel` is `time-sensitive` or `critical`; inside quiet hours (then, or at the
    /// snooze's end) the push waits until they end.
    /// A disabled type also covers its sub-types: disabling `promo.flash` skips
    /// `promo.flash.weekend`, never `promo.flashy`. A category is enabled unless stored as `false`.
    public static func decide(
        preferences: Preferences, type: String, category: String?, catalog: Catalog, now: Date,
        interruptionLevel: String? = nil
    ) -> PushDecision {
        decide(
            preferences: preferences, type: type, category: category, catalog: catalog, now: now,
            circumstances: PushCircumstances(interruptionLevel: interruptionLevel))
    }

    /// ``decide(preferences:type:category:catalog:now:interruptionLevel:)`` with every circumstance.
    public static func decide(
        preferences: Preferences, type: String, category: String?, catalog: Catalog, now: Date,
        circumstances: PushCircumstances
    ) -> PushDecision {
        if !preferences.globalEnabled { return .skip(reason: .globalOff) }
        if preferences.osPermissionGranted == false { return .skip(reason: .osDenied) }
        let exempt = category.map(isExempt(catalog: catalog)) ?? false
        if !exempt {
            if let category, preferences.categories[category] == false { return .skip(reason: .categoryOff) }
            if isDisabled(type: type, in: preferences.disabledTypes) { return .skip(reason: .typeDisabled) }
            if let source = circumstances.sourceID, preferences.mutedSources.contains(source) {
                return .skip(reason: .sourceMuted)
            }
        }
        if category != Catalog.accountCategoryID {
            let digestAt = digestTime(preferences, now: now, zone: circumstances.timeZone)
            if circumstances.digestEligible, let digestAt { return .digest(at: digestAt) }
            if circumstances.overCap {
                if let digestAt { return .digest(at: digestAt) }
                return .skip(reason: .throttled)
            }
        }
        let interruptionLevel = circumstances.interruptionLevel
        var sendAt = now
        let urgent = interruptionLevel == "time-sensitive" || interruptionLevel == "critical"
        if let until = preferences.snoozedUntil, until > now, !exempt, !urgent { sendAt = until }
        if let quietHours = preferences.quietHours, let end = quietHours.end(ifContaining: sendAt) { sendAt = end }
        guard sendAt > now else { return .send }
        return .defer(until: sendAt, snoozed: sendAt == preferences.snoozedUntil)
    }

    /// When the user's digest next goes out, or nil when it is off.
    public static func digestTime(_ preferences: Preferences, now: Date, zone: TimeZone) -> Date? {
        guard let digest = preferences.digest, digest.enabled else { return nil }
        return LocalTime.next(digest.localTime, onOrAfter: now, in: zone)
    }

    /// Whether `category` ignores the user's switches: the account category, and any
    /// catalog category without a preference toggle.
    private static func isExempt(catalog: Catalog) -> (String) -> Bool {
        { category in
            if category == Catalog.accountCategoryID { return true }
            if let known = catalog.category(id: category) { return !known.canOptOut }
            return false
        }
    }

    /// Whether `type` or one of its dotted ancestors is listed.
    static func isDisabled(type: String, in disabled: [String]) -> Bool {
        disabled.contains { entry in
            type == entry || (type.hasPrefix(entry) && type.dropFirst(entry.count).first == ".")
        }
    }
}
