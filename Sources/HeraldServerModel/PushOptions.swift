import FoundationEssentials
import HeraldModel

/// Push options of a publish request (the `push` object): all optional but `send`. Each maps to
/// what every provider reads (see `PushPayload` in HeraldPush); a key not listed here is refused,
/// so a misspelt option is a 400 rather than a push sent without it.
public struct PushOptions: Codable, Sendable, Equatable {
    public enum Priority: String, Codable, Sendable, CaseIterable {
        case high, normal

        public init(from decoder: any Decoder) throws {
            self = try OptionValue.decode(from: decoder)
        }
    }

    /// How far a push may break through (iOS `interruption-level`): `passive` is added to the list
    /// silently, `active` is the default, `time-sensitive` breaks through a Focus, `critical`
    /// through mute and Do Not Disturb (the app needs Apple's critical-alerts entitlement).
    public enum InterruptionLevel: String, Codable, Sendable, CaseIterable {
        case passive, active
        case timeSensitive = "time-sensitive"
        case critical

        public init(from decoder: any Decoder) throws {
            self = try OptionValue.decode(from: decoder)
        }
    }

    /// Whether to push at all; the inbox row is written either way.
    public var send: Bool
    public var priority: Priority?
    public var ttlSeconds: Int?
    public var collapseId: String?
    /// The sound the push plays: a sound file bundled with the app, ``defaultSound`` (the
    /// platform's default sound, also what an omitted sound means) or ``silentSound`` (none);
    /// as an object, a critical alert sound with its volume.
    public var sound: PushSound?
    public var interruptionLevel: InterruptionLevel?
    /// 0 to 1: which of an app's notifications the summary puts first (iOS `relevance-score`).
    public var relevanceScore: Double?
    /// Groups notifications on the lock screen (iOS `thread-id`).
    public var threadId: String?
    /// The notification category the app registered, which names its action buttons (APNs
    /// `category`, Android `click_action`, Expo `categoryId`).
    public var category: String?
    /// An `https` image shown with the banner (APNs through a notification service extension,
    /// hence `mutable-content`; FCM `image`; Expo `richContent.image`).
    public var imageURL: String?
    /// A line between the title and the body (iOS; Expo `subtitle`).
    public var subtitle: String?
    /// A background update instead of a banner: the app wakes to refresh and nothing is shown
    /// (APNs `content-available` with `apns-push-type: background` at priority 5, an FCM
    /// data-only message, Expo `_contentAvailable`). The inbox row is written as usual.
    public var contentAvailable: Bool?
    /// The Android notification channel the app created.
    public var channelId: String?
    /// FCM's analytics label (`fcm_options.analytics_label`).
    public var analyticsLabel: String?
    /// Wait for the recipient's digest, while they have one on (see `digestCategories`).
    public var digest: Bool?

    /// `sound` for the platform's default sound: what every push plays unless told otherwise
    /// (PUSH-07: a push in the foreground still shows a banner and plays a sound).
    public static let defaultSound = "default"
    /// `sound` for a silent push: the providers get no sound key.
    public static let silentSound = "none"
    /// The key of the APNs payload (beside the push data) that carries ``imageURL`` for the app's
    /// notification service extension.
    public static let imageURLPayloadKey = "imageURL"

    public init(
        send: Bool, priority: Priority? = nil, ttlSeconds: Int? = nil, collapseId: String? = nil,
        sound: PushSound? = nil, interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil,
        threadId: String? = nil, category: String? = nil, imageURL: String? = nil, subtitle: String? = nil,
        contentAvailable: Bool? = nil, channelId: String? = nil, analyticsLabel: String? = nil, digest: Bool? = nil
    ) {
        self.digest = digest
        self.send = send
        self.priority = priority
        self.ttlSeconds = ttlSeconds
        self.collapseId = collapseId
        self.sound = sound
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.threadId = threadId
        self.category = category
        self.imageURL = imageURL
        self.subtitle = subtitle
        self.contentAvailable = contentAvailable
        self.channelId = channelId
        self.analyticsLabel = analyticsLabel
    }

    /// A background update (``contentAvailable``): no banner, no sound, no badge.
    public var isBackground: Bool { contentAvailable == true }

    /// Whether any option beyond send, priority, TTL, collapse id and a sound name is set (the
    /// store writes the plain ones on a fast path).
    public var usesRichOptions: Bool {
        sound?.isCritical == true || interruptionLevel != nil || relevanceScore != nil || threadId != nil
            || category != nil || imageURL != nil || subtitle != nil || contentAvailable != nil || channelId != nil
            || analyticsLabel != nil || digest != nil
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case send, priority, ttlSeconds, collapseId, sound, interruptionLevel, relevanceScore, threadId, category
        case imageURL, subtitle, contentAvailable, channelId, analyticsLabel, digest
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "push")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        send = try container.decode(Bool.self, forKey: .send)
        priority = try container.decodeIfPresent(Priority.self, forKey: .priority)
        ttlSeconds = try container.decodeIfPresent(Int.self, forKey: .ttlSeconds)
        collapseId = try container.decodeIfPresent(String.self, forKey: .collapseId)
        sound = try container.decodeIfPresent(PushSound.self, forKey: .sound)
        interruptionLevel = try container.decodeIfPresent(InterruptionLevel.self, forKey: .interruptionLevel)
        relevanceScore = try container.decodeIfPresent(Double.self, forKey: .relevanceScore)
        threadId = try container.decodeIfPresent(String.self, forKey: .threadId)
        category = try container.decodeIfPresent(String.self, forKey: .category)
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        subtitle = try container.decodeIfPresent(String.self, forKey: .subtitle)
        contentAvailable = try container.decodeIfPresent(Bool.self, forKey: .contentAvailable)
        channelId = try container.decodeIfPresent(String.self, forKey: .channelId)
        analyticsLabel = try container.decodeIfPresent(String.self, forKey: .analyticsLabel)
        digest = try container.decodeIfPresent(Bool.self, forKey: .digest)
    }
}

/// The `sound` of a push: a name (`"chime.caf"`, `"default"`, `"none"`), or the object
/// `{"name", "critical", "volume"}` for a critical alert sound, which plays through mute and Do
/// Not Disturb at `volume` (0 to 1).
public struct PushSound: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var name: String
    public var critical: Bool
    public var volume: Double?

    public init(name: String, critical: Bool = false, volume: Double? = nil) {
        self.name = name
        self.critical = critical
        self.volume = volume
    }

    public init(stringLiteral name: String) { self.init(name: name) }

    /// Whether the object form is needed to say it (a critical sound, or one with a volume).
    public var isCritical: Bool { critical || volume != nil }

    /// No sound at all (``PushOptions/silentSound``).
    public var isSilent: Bool { name == PushOptions.silentSound && !isCritical }

    private enum CodingKeys: String, CodingKey, CaseIterable { case name, critical, volume }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            self.init(name: name)
            return
        }
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "sound")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            critical: try container.decodeIfPresent(Bool.self, forKey: .critical) ?? false,
            volume: try container.decodeIfPresent(Double.self, forKey: .volume))
    }

    public func encode(to encoder: any Encoder) throws {
        guard isCritical else {
            var single = encoder.singleValueContainer()
            try single.encode(name)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(critical, forKey: .critical)
        try container.encodeIfPresent(volume, forKey: .volume)
    }
}

/// Decodes an option spelled as one of a few strings, naming them all when it is none of them.
private enum OptionValue {
    static func decode<Value: RawRepresentable & CaseIterable>(from decoder: any Decoder) throws -> Value
    where Value.RawValue == String {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let value = Value(rawValue: text) { return value }
        let names = Value.allCases.map { "\"\($0.rawValue)\"" }
        throw DecodingError.dataCorruptedError(
            in: container,
            debugDescription:
                "must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), not \"\(text.prefix(40))\"."
        )
    }
}

extension PushOptions {
    /// Checks every option against ``Limits`` and against each other; throws the first
    /// ``ValidationError`` found.
    public func validate() throws { try validate(field: "push") }

    /// A push's time to live: 0 (one attempt, never stored) to ``Limits/pushTTLMaxSeconds``.
    static func validateTTL(_ seconds: Int, field: String) throws {
        guard !(0...Limits.pushTTLMaxSeconds).contains(seconds) else { return }
        throw ValidationError(
            field: field, code: "out_of_range",
            message: "\(field) must be between 0 and \(Limits.pushTTLMaxSeconds) (28 days).")
    }

    func validate(field: String) throws {
        if let ttlSeconds { try Self.validateTTL(ttlSeconds, field: "\(field).ttlSeconds") }
        if let collapseId {
            if collapseId.isEmpty { throw ValidationError.invalid("\(field).collapseId", "must not be empty.") }
            if collapseId.utf8.count > Limits.collapseIdMaxBytes {
                throw ValidationError.tooLong("\(field).collapseId", max: Limits.collapseIdMaxBytes, unit: "bytes")
            }
            // It becomes the apns-collapse-id header: printable ASCII only.
            guard collapseId.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw ValidationError.invalid("\(field).collapseId", "must be printable ASCII.")
            }
        }
        if let sound { try sound.validate(field: "\(field).sound") }
        if let relevanceScore, !relevanceScore.isFinite || !(0...1).contains(relevanceScore) {
            throw ValidationError(
                field: "\(field).relevanceScore", code: "out_of_range",
                message: "\(field).relevanceScore must be between 0 and 1.")
        }
        for (name, value) in [("threadId", threadId), ("category", category), ("channelId", channelId)] {
            guard let value else { continue }
            try Check.requiredText(value, "\(field).\(name)", max: Limits.pushIdentifierMaxLength)
            if Check.hasControl(value) {
                throw ValidationError.invalid("\(field).\(name)", "must not contain control characters.")
            }
        }
        if let imageURL { try Check.httpsURL(imageURL, "\(field).imageURL") }
        if let subtitle { try Check.requiredText(subtitle, "\(field).subtitle", max: Limits.titleMaxLength) }
        if let analyticsLabel {
            // FCM's pattern for an analytics label: ^[a-zA-Z0-9-_.~%]{1,50}$
            let allowed = analyticsLabel.utf8.allSatisfy { Check.isASCIIAlnum($0) || Array("-_.~%".utf8).contains($0) }
            guard allowed, (1...Limits.analyticsLabelMaxLength).contains(analyticsLabel.utf8.count) else {
                throw ValidationError.invalid(
                    "\(field).analyticsLabel",
                    "must be 1 to \(Limits.analyticsLabelMaxLength) letters, digits or - _ . ~ % (FCM's rule).")
            }
        }
        if isBackground { try validateBackground(field: field) }
    }

    /// A background update shows nothing, so an option that only changes what is shown would be
    /// dropped without a word: it is refused instead, and so is high priority (APNs takes
    /// background pushes at priority 5 only).
    private func validateBackground(field: String) throws {
        if priority == .high {
            throw ValidationError.invalid(
                "\(field).priority",
                "cannot be high with \(field).contentAvailable: a background update goes at normal priority.")
        }
        let shown: [(String, Bool)] = [
            ("sound", sound.map { !$0.isSilent } ?? false), ("interruptionLevel", interruptionLevel != nil),
            ("relevanceScore", relevanceScore != nil), ("threadId", threadId != nil), ("category", category != nil),
            ("imageURL", imageURL != nil), ("subtitle", subtitle != nil), ("channelId", channelId != nil),
        ]
        if let name = shown.first(where: \.1)?.0 {
            throw ValidationError.invalid(
                "\(field).\(name)",
                "cannot go with \(field).contentAvailable: a background update shows nothing; leave it out or send a banner."
            )
        }
    }
}

extension PushSound {
    func validate(field: String) throws {
        let nameField = isCritical ? "\(field).name" : field
        if name.isEmpty {
            throw ValidationError.invalid(
                nameField,
                #"must not be empty; omit it for the default sound, or use "\#(PushOptions.silentSound)" for a silent push."#
            )
        }
        try Check.maxLength(name, nameField, Limits.soundMaxLength)
        if Check.hasControl(name) || name.contains("/") || name.contains("\\") {
            throw ValidationError.invalid(nameField, "must be a sound file name without slashes or control characters.")
        }
        if isCritical, name == PushOptions.silentSound {
            throw ValidationError.invalid(nameField, "must name a sound: a critical sound cannot be silent.")
        }
        if let volume {
            guard volume.isFinite, (0...1).contains(volume) else {
                throw ValidationError(
                    field: "\(field).volume", code: "out_of_range", message: "\(field).volume must be between 0 and 1.")
            }
            guard critical else {
                throw ValidationError.invalid(
                    "\(field).volume", "applies to a critical sound only: set \(field).critical to true.")
            }
        }
    }
}
