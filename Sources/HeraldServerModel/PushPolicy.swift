import Foundation
import HeraldModel

/// What to do with one push for one user.
public enum PushDecision: Sendable, Equatable {
    case send
    case skip(reason: PushSkipReason)
    /// Quiet hours or a snooze: send at `until`, when the window (or the snooze) ends;
    /// `snoozed` when the snooze is what holds it (ending the snooze early releases it).
    case `defer`(until: Date, snoozed: Bool = false)
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
}

/// The server's push policy, pure so it can be tested and reused by every delivery path.
public enum PushPolicy {
    /// Decides whether a push of `type` (in `category`, as the catalog assigned it) goes out
    /// now, later or never.
    ///
    /// In order: the master switch must be on; the OS permission must not be denied
    /// (`nil`, never asked, does not block); the category must not be switched off and the
    /// type must not be disabled (both ignored for a category that cannot be opted out of,
    /// such as account, PREFS-06); while the user snoozes, the push waits until the snooze ends,
    /// unless it is of such a category or `interruptionLevel` is `time-sensitive` or `critical`;
    /// inside quiet hours (then, or at the snooze's end) the push waits until they end.
    /// A disabled type also covers its sub-types: disabling `promo.flash` skips
    /// `promo.flash.weekend`, never `promo.flashy`. A category is enabled unless stored as `false`.
    public static func decide(
        preferences: Preferences, type: String, category: String?, catalog: Catalog, now: Date,
        interruptionLevel: String? = nil
    ) -> PushDecision {
        if !preferences.globalEnabled { return .skip(reason: .globalOff) }
        if preferences.osPermissionGranted == false { return .skip(reason: .osDenied) }
        let exempt = category.map(isExempt(catalog: catalog)) ?? false
        if !exempt {
            if let category, preferences.categories[category] == false { return .skip(reason: .categoryOff) }
            if isDisabled(type: type, in: preferences.disabledTypes) { return .skip(reason: .typeDisabled) }
        }
        var sendAt = now
        let urgent = interruptionLevel == "time-sensitive" || interruptionLevel == "critical"
        if let until = preferences.snoozedUntil, until > now, !exempt, !urgent { sendAt = until }
        if let quietHours = preferences.quietHours, let end = quietHours.end(ifContaining: sendAt) { sendAt = end }
        guard sendAt > now else { return .send }
        return .defer(until: sendAt, snoozed: sendAt == preferences.snoozedUntil)
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
