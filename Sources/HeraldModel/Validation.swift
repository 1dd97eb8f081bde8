#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a request was refused: the field at fault, a stable snake_case code, and a message
/// a person can act on (it names the field and the limit).
///
/// Codes: `required`, `too_long`, `too_short`, `too_many`, `too_few`, `out_of_range`,
/// `invalid`, `duplicate`, `reserved`, `unknown_category`, `not_configurable`.
public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field at fault, in the request's own spelling: `title`, `recipients[2]`,
    /// `data.orderId`, `detail.heroImageURL`, `push.ttlSeconds`.
    public var field: String
    /// Stable, snake_case; safe to branch on.
    public var code: String
    /// Human text naming the field and the limit.
    public var message: String

    public init(field: String, code: String, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The JSON error body for a 400 answer.
    public var envelope: ErrorEnvelope { ErrorEnvelope(code: code, message: message) }
}

/// Every size and count limit of the contract, in one place.
/// Lengths of text are in characters (grapheme clusters) unless the name says bytes.
public enum Limits {
    public static let titleMaxLength = 200
    public static let bodyMaxLength = 2_000
    public static let typeMaxLength = 100
    public static let userIdMaxLength = 128
    public static let recipientsMax = 1_000
    /// User ids listed in one broadcast audience (the request body limit applies too).
    public static let broadcastUsersMax = 100_000
    public static let dataMaxKeys = 50
    public static let dataKeyMaxLength = 64
    public static let dataValueMaxLength = 1_024
    public static let deepLinkMaxLength = 2_048
    public static let detailHTMLMaxLength = 100_000
    public static let actionLabelMaxLength = 60
    public static let urlMaxLength = 2_048
    /// Four weeks, the longest any provider keeps a push.
    public static let pushTTLMaxSeconds = 2_419_200
    /// APNs refuses a longer `apns-collapse-id`.
    public static let collapseIdMaxBytes = 64
    public static let soundMaxLength = 64
    /// `push.threadId`, `push.category` and `push.channelId`.
    public static let pushIdentifierMaxLength = 64
    /// FCM's limit on `fcm_options.analytics_label`.
    public static let analyticsLabelMaxLength = 50
    public static let eventsPerBatch = 100
    public static let eventNameMaxLength = 100
    /// The JSON encoding of one event's `properties`.
    public static let eventPropertiesMaxBytes = 4_096
    public static let appVersionMaxLength = 32
    /// An app id (`POST /v1/me/devices` `appId`, the apps file's `id`).
    public static let appIDMaxLength = 64
    /// The longest snooze (`PATCH /v1/me/preferences` `snoozedUntil`): a year.
    public static let snoozeMaxSeconds = 365 * 86_400
    /// BCP 47 tags, as RFC 5646 recommends supporting.
    public static let localeMaxLength = 35
    public static let disabledTypesMax = 100
    /// `frequencyCaps` in app config (one per category at most).
    public static let frequencyCapsMax = 50
    /// A cap's `max`.
    public static let frequencyCapMax = 10_000
    /// A cap's `periodSeconds`: 30 days.
    public static let frequencyCapPeriodMaxSeconds = 30 * 86_400
    /// How far ahead a publish's `sendAt` may be: a year.
    public static let sendAtMaxSeconds = 365 * 86_400
    /// `mutedSources` in preferences.
    public static let mutedSourcesMax = 200
    /// A publish's `source.id`.
    public static let sourceIdMaxLength = 128
    /// A publish's `source.name`.
    public static let sourceNameMaxLength = 100
    public static let allowedPrefixesMax = 100
    public static let allowedPrefixMaxLength = 512
    public static let catalogCategoriesMax = 50
    public static let catalogRulesMax = 200
    public static let categoryIdMaxLength = 64
    public static let chipMaxLength = 40
    public static let preferenceToggleMaxLength = 60
    /// Push title and body are cut to this many characters.
    public static let pushTextMaxLength = 150
    /// APNs device tokens: hex digits.
    public static let apnsTokenMinLength = 64
    public static let apnsTokenMaxLength = 200
    public static let fcmTokenMaxLength = 4_096
    /// The part between the brackets of `ExponentPushToken[...]`.
    public static let expoTokenInnerMaxLength = 256
    /// The name of an app's `ActivityAttributes` type (APNs `attributes-type`).
    public static let attributesTypeMaxLength = 128
    /// A Live Activity's id (ActivityKit's `Activity.id`, a UUID, or the publisher's own).
    public static let activityIdMaxLength = 128
}

// MARK: - Shared checks

extension ValidationError {
    package static func required(_ field: String) -> ValidationError {
        ValidationError(field: field, code: "required", message: "\(field) is required.")
    }

    package static func tooLong(_ field: String, max: Int, unit: String = "characters") -> ValidationError {
        ValidationError(field: field, code: "too_long", message: "\(field) must be at most \(max) \(unit).")
    }

    package static func tooMany(_ field: String, max: Int, what: String) -> ValidationError {
        ValidationError(field: field, code: "too_many", message: "\(field) must have at most \(max) \(what).")
    }

    package static func invalid(_ field: String, _ explanation: String) -> ValidationError {
        ValidationError(field: field, code: "invalid", message: "\(field) \(explanation)")
    }
}

package enum Check {
    /// Fails with `too_long` when `value` has more than `max` characters.
    package static func maxLength(_ value: String, _ field: String, _ max: Int) throws {
        // Cheap bound first: a string never has more characters than UTF-8 bytes.
        if value.utf8.count > max, value.count > max { throw ValidationError.tooLong(field, max: max) }
    }

    /// Fails with `required` when blank and `too_long` when longer than `max`.
    package static func requiredText(_ value: String, _ field: String, max: Int) throws {
        if value.allSatisfy(\.isWhitespace) { throw ValidationError.required(field) }
        try maxLength(value, field, max)
    }

    /// `^[a-z0-9_]+(\.[a-z0-9_-]+)*$`, at most ``Limits/typeMaxLength``.
    package static func isValidType(_ type: String) -> Bool {
        let bytes = Array(type.utf8)
        guard !bytes.isEmpty, bytes.count <= Limits.typeMaxLength else { return false }
        var segmentLength = 0
        var firstSegment = true
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                if segmentLength == 0 { return false }
                segmentLength = 0
                firstSegment = false
                continue
            }
            let ok = isLowerAlnum(byte) || byte == UInt8(ascii: "_") || (!firstSegment && byte == UInt8(ascii: "-"))
            if !ok { return false }
            segmentLength += 1
        }
        return segmentLength > 0
    }

    package static func type(_ type: String, _ field: String) throws {
        if type.isEmpty { throw ValidationError.required(field) }
        try maxLength(type, field, Limits.typeMaxLength)
        if !isValidType(type) {
            throw ValidationError.invalid(
                field,
                "must be a dotted type such as order.shipped: lowercase letters, digits and _ (and - after the first dot)."
            )
        }
    }

    /// 1 to 128 of `A-Z a-z 0-9 . _ : @ -`.
    package static func isValidUserId(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= Limits.userIdMaxLength else { return false }
        return bytes.allSatisfy { byte in
            isLowerAlnum(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-")
        }
    }

    package static func userId(_ id: String, _ field: String) throws {
        if id.isEmpty { throw ValidationError.required(field) }
        if id.utf8.count > Limits.userIdMaxLength { throw ValidationError.tooLong(field, max: Limits.userIdMaxLength) }
        if !isValidUserId(id) {
            throw ValidationError.invalid(
                field, "must use only letters, digits and . _ : @ - (1 to \(Limits.userIdMaxLength)).")
        }
    }

    /// A source id: the user-id alphabet (`A-Z a-z 0-9 . _ : @ -`), 1 to ``Limits/sourceIdMaxLength``.
    package static func sourceID(_ id: String, _ field: String) throws {
        if id.isEmpty { throw ValidationError.required(field) }
        if id.utf8.count > Limits.sourceIdMaxLength {
            throw ValidationError.tooLong(field, max: Limits.sourceIdMaxLength)
        }
        if !isValidUserId(id) {
            throw ValidationError.invalid(
                field, "must use only letters, digits and . _ : @ - (1 to \(Limits.sourceIdMaxLength)).")
        }
    }

    package static func isLowerAlnum(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    package static func isASCIIAlnum(_ byte: UInt8) -> Bool {
        isLowerAlnum(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// Whether `value` contains whitespace or control characters, which no URL or path may hold.
    package static func hasSpaceOrControl(_ value: String) -> Bool {
        value.unicodeScalars.contains { scalar in
            scalar.value <= 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value <= 0x9F)
                || scalar.properties.isWhitespace
        }
    }

    /// Whether `value` contains control characters (C0, DEL, C1).
    package static func hasControl(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) }
    }

    /// The scheme of an absolute URL (`https` of `https://x`), lowercased; `nil` when `value`
    /// does not start with `scheme:`.
    package static func scheme(of value: String) -> String? {
        guard let colon = value.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let candidate = value.utf8[value.utf8.startIndex..<colon]
        guard let first = candidate.first, isASCIIAlnum(first),
            !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        else {
            return nil
        }
        let ok = candidate.allSatisfy {
            isASCIIAlnum($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
        return ok ? String(decoding: candidate, as: UTF8.self).lowercased() : nil
    }

    /// Schemes no link may use: they run code or smuggle content.
    package static let forbiddenSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "about", "blob"]

    /// An `https` URL with a host, at most ``Limits/urlMaxLength``.
    package static func httpsURL(_ value: String, _ field: String) throws {
        if value.isEmpty { throw ValidationError.required(field) }
        try maxLength(value, field, Limits.urlMaxLength)
        guard !hasSpaceOrControl(value), scheme(of: value) == "https",
            let components = URLComponents(string: value), let host = components.host, !host.isEmpty
        else {
            throw ValidationError.invalid(
                field, "must be an absolute https URL, such as https://example.com/image.png.")
        }
    }

    /// An in-app path: starts with a single `/`, no spaces, at most ``Limits/urlMaxLength``.
    package static func appPath(_ value: String, _ field: String, max: Int = Limits.urlMaxLength) throws {
        if value.isEmpty { throw ValidationError.required(field) }
        try maxLength(value, field, max)
        if !isAppPath(value) {
            throw ValidationError.invalid(field, "must be an in-app path starting with /, such as /orders/123.")
        }
    }

    package static func isAppPath(_ value: String) -> Bool {
        value.hasPrefix("/") && !value.hasPrefix("//") && !value.hasPrefix("/\\") && !hasSpaceOrControl(value)
    }

    /// An absolute URL with a scheme (not one that runs code), or an in-app path.
    package static func link(_ value: String, _ field: String, max: Int) throws {
        if value.isEmpty { throw ValidationError.required(field) }
        try maxLength(value, field, max)
        if isAppPath(value) { return }
        guard !hasSpaceOrControl(value), let scheme = scheme(of: value),
            value.utf8.count > scheme.utf8.count + 1, !forbiddenSchemes.contains(scheme)
        else {
            throw ValidationError.invalid(
                field, "must be a URL with a scheme (myapp://orders/1, https://...) or a path starting with /."
            )
        }
    }

    /// Whether `identifier` names a real time zone (`Europe/Amsterdam`, `UTC`); abbreviations
    /// such as `PST` and offsets such as `GMT+2` are refused because they are ambiguous.
    package static func isKnownTimeZone(_ identifier: String) -> Bool {
        TimeZones.universal.contains(identifier) || (isZoneName(identifier) && TimeZones.named(identifier) != nil)
    }

    /// Whether `identifier` is a name validation takes for a zone once loaded: a location zone
    /// or an `Etc/` one (the zone data decides which of those exist).
    private static func isZoneName(_ identifier: String) -> Bool {
        identifier.hasPrefix("Etc/") || TimeZones.known.contains(identifier)
    }

    package static func timeZone(_ identifier: String, _ field: String) throws {
        if identifier.isEmpty { throw ValidationError.required(field) }
        if !isKnownTimeZone(identifier) {
            if isZoneName(identifier), TimeZones.unavailable {
                throw ValidationError.invalid(
                    field,
                    "names a time zone this server cannot load (FoundationInternationalization and ICU could not be loaded): use UTC, or ask its operator."
                )
            }
            throw ValidationError.invalid(
                field, "must be a known time zone identifier, such as Europe/Amsterdam or UTC.")
        }
    }
}

/// Single-value checks for input that does not arrive in one of the request types
/// (path parameters, command-line flags). Each throws a ``ValidationError`` naming `field`.
public enum Validate {
    /// 1 to ``Limits/userIdMaxLength`` of `A-Z a-z 0-9 . _ : @ -`.
    public static func userID(_ id: String, field: String) throws {
        try Check.userId(id, field)
    }

    /// A dotted notification type such as `order.shipped`.
    public static func type(_ type: String, field: String) throws {
        try Check.type(type, field)
    }

    /// A known time zone identifier such as `Europe/Amsterdam` or `UTC`.
    public static func timeZone(_ identifier: String, field: String) throws {
        try Check.timeZone(identifier, field)
    }

    /// An APNs, FCM or Expo token of the right shape for `provider`.
    public static func token(_ token: String, provider: PushProvider) throws {
        try DeviceRegistration.validateToken(token, provider: provider)
    }
}
