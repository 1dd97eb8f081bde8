#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The push service a device token belongs to.
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    case apns, fcm, expo
}

/// The operating system of a device.
public enum DevicePlatform: String, Codable, Sendable, CaseIterable {
    case ios, android
}

/// Which APNs (or provider) environment a token was issued for.
public enum PushEnvironment: String, Codable, Sendable, CaseIterable {
    case production, development
}

/// `POST /v1/me/devices`.
public struct DeviceRegistration: Codable, Sendable, Equatable {
    public var token: String
    public var provider: PushProvider
    public var platform: DevicePlatform
    /// Defaults to `production` when omitted.
    public var environment: PushEnvironment?
    public var appVersion: String?
    public var locale: String?
    public var timeZone: String?
    /// The app the token belongs to, as the server's apps file names it (its push credentials);
    /// omitted: the default app, ``defaultAppID``.
    public var appId: String?

    /// The app of a registration that names none: the one `herald serve`'s own push flags configure.
    public static let defaultAppID = "default"

    public init(
        token: String, provider: PushProvider, platform: DevicePlatform, environment: PushEnvironment? = nil,
        appVersion: String? = nil, locale: String? = nil, timeZone: String? = nil, appId: String? = nil
    ) {
        self.token = token
        self.provider = provider
        self.platform = platform
        self.environment = environment
        self.appVersion = appVersion
        self.locale = locale
        self.timeZone = timeZone
        self.appId = appId
    }
}

/// A registered device as the API returns it.
public struct Device: Codable, Sendable, Equatable {
    public var token: String
    public var userId: String
    public var provider: PushProvider
    public var platform: DevicePlatform
    public var environment: PushEnvironment
    public var appVersion: String?
    public var locale: String?
    public var timeZone: String?
    public var active: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// The app the token belongs to (``DeviceRegistration/defaultAppID`` unless it named another);
    /// nil from a server older than app ids.
    public var appId: String?

    public init(
        token: String, userId: String, provider: PushProvider, platform: DevicePlatform,
        environment: PushEnvironment, appVersion: String?, locale: String?, timeZone: String?,
        active: Bool, createdAt: Date, updatedAt: Date, appId: String? = DeviceRegistration.defaultAppID
    ) {
        self.appId = appId
        self.token = token
        self.userId = userId
        self.provider = provider
        self.platform = platform
        self.environment = environment
        self.appVersion = appVersion
        self.locale = locale
        self.timeZone = timeZone
        self.active = active
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// `GET /v1/users/{id}/devices`.
public struct DeviceList: Codable, Sendable, Equatable {
    public var items: [Device]
    public init(items: [Device]) { self.items = items }
}
