#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a Live Activity push token is for (ActivityKit's two tokens).
public enum LiveActivityTokenKind: String, Codable, Sendable, CaseIterable {
    /// One activity's token (`Activity.pushTokenUpdates`): updates and ends that activity.
    case update
    /// The token that starts a new activity of one attributes type on this device
    /// (`Activity<Attributes>.pushToStartTokenUpdates`, iOS 17.2).
    case pushToStart
}

/// `POST /v1/me/live-activities`: `{activityId, attributesType, token}` registers an activity's
/// update token, `{attributesType, token, kind: "pushToStart"}` a push-to-start token.
public struct LiveActivityTokenRegistration: Codable, Sendable, Equatable {
    /// The token as hexadecimal digits (ActivityKit hands it over as `Data`).
    public var token: String
    /// The name of the app's `ActivityAttributes` type, as APNs `attributes-type` spells it.
    public var attributesType: String
    /// The activity the update token belongs to; absent for a push-to-start token.
    public var activityId: String?
    /// `update` when omitted.
    public var kind: LiveActivityTokenKind?
    /// The APNs environment of the app's build; `production` when omitted.
    public var environment: PushEnvironment?
    /// The app whose APNs credentials push to the token (as a device's `appId`); omitted: the
    /// default app.
    public var appId: String?

    public init(
        token: String, attributesType: String, activityId: String? = nil, kind: LiveActivityTokenKind? = nil,
        environment: PushEnvironment? = nil, appId: String? = nil
    ) {
        self.appId = appId
        self.token = token
        self.attributesType = attributesType
        self.activityId = activityId
        self.kind = kind
        self.environment = environment
    }

    /// ``kind``, `update` when omitted.
    public var resolvedKind: LiveActivityTokenKind { kind ?? .update }

    /// This registration with the token in lower case, as APNs tokens are stored and compared.
    public func normalized() -> LiveActivityTokenRegistration {
        var copy = self
        copy.token = token.lowercased()
        return copy
    }

    /// Checks the token (APNs hex), the attributes type, and that an update token names its
    /// activity while a push-to-start token names none.
    public func validate() throws {
        try DeviceRegistration.validateToken(token, provider: .apns)
        try Check.attributesType(attributesType, "attributesType")
        if let appId { try DeviceRegistration.validateAppID(appId, field: "appId") }
        switch resolvedKind {
        case .update:
            guard let activityId else {
                throw ValidationError.invalid(
                    "activityId", "is required for an update token; a push-to-start token says kind \"pushToStart\".")
            }
            try Check.activityID(activityId, "activityId")
        case .pushToStart:
            if activityId != nil {
                throw ValidationError.invalid(
                    "activityId", "must be left out of a push-to-start token: it starts activities not yet made.")
            }
        }
    }
}

/// A registered Live Activity token, as the API answers it.
public struct LiveActivityToken: Codable, Sendable, Equatable {
    public var token: String
    public var kind: LiveActivityTokenKind
    public var attributesType: String
    /// `nil` for a push-to-start token.
    public var activityId: String?
    public var userId: String
    public var environment: PushEnvironment
    /// `false` once APNs called it dead.
    public var active: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// The app whose credentials push to the token; nil from a server older than app ids.
    public var appId: String?

    public init(
        token: String, kind: LiveActivityTokenKind, attributesType: String, activityId: String?, userId: String,
        environment: PushEnvironment, active: Bool, createdAt: Date, updatedAt: Date,
        appId: String? = DeviceRegistration.defaultAppID
    ) {
        self.appId = appId
        self.token = token
        self.kind = kind
        self.attributesType = attributesType
        self.activityId = activityId
        self.userId = userId
        self.environment = environment
        self.active = active
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    // `activityId` is spelled out as `null` for a push-to-start token.
    enum CodingKeys: String, CodingKey {
        case token, kind, attributesType, activityId, userId, environment, active, createdAt, updatedAt, appId
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(kind, forKey: .kind)
        try container.encode(attributesType, forKey: .attributesType)
        try container.encode(activityId, forKey: .activityId)
        try container.encode(userId, forKey: .userId)
        try container.encode(environment, forKey: .environment)
        try container.encode(active, forKey: .active)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(appId, forKey: .appId)
    }
}

extension Check {
    /// A Swift type name as ActivityKit sends it in `attributes-type`: 1 to
    /// ``Limits/attributesTypeMaxLength`` letters, digits, `_` and `.`, not starting with a digit.
    package static func attributesType(_ value: String, _ field: String) throws {
        if value.isEmpty { throw ValidationError.required(field) }
        try maxLength(value, field, Limits.attributesTypeMaxLength)
        let bytes = Array(value.utf8)
        let ok =
            bytes.allSatisfy { isASCIIAlnum($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
            && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[0])
        if !ok {
            throw ValidationError.invalid(
                field, "must be the name of the app's ActivityAttributes type (letters, digits, _ and .).")
        }
    }

    /// An activity id: what a user id may be (1 to 128 of `A-Z a-z 0-9 . _ : @ -`, so a UUID or the
    /// publisher's own name), safe in a path.
    package static func activityID(_ value: String, _ field: String) throws {
        if value.isEmpty { throw ValidationError.required(field) }
        guard isValidUserId(value) else {
            throw ValidationError.invalid(
                field, "must be 1 to \(Limits.activityIdMaxLength) of A-Z a-z 0-9 . _ : @ - (a UUID fits).")
        }
    }
}
