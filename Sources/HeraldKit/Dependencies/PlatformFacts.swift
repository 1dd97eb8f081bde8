import HeraldModel

/// Facts about the device and build that change behaviour.
public struct PlatformFacts: Sendable, Equatable {
    /// How the app was installed (Android: Play Store or sideloaded).
    public enum InstallSource: String, Sendable, Equatable {
        case appStore, playStore, testFlight, sideloaded, unknown
    }

    public var platform: DevicePlatform
    /// Simulators and emulators have no push token (PUSH-06).
    public var isSimulator: Bool
    /// The installed app's semantic version.
    public var appVersion: String
    public var installSource: InstallSource?
    public var locale: String?
    /// The device's IANA time zone: sent with the device registration, and the zone of the
    /// preferences' local times (quiet hours, the digest, the snooze's morning; UTC when `nil`).
    public var timeZone: String?
    /// Which of the server's apps this is (its apps file's id, whose push credentials send to
    /// this device); nil: the server's default app.
    public var appId: String?

    public init(
        platform: DevicePlatform, isSimulator: Bool = false, appVersion: String,
        installSource: InstallSource? = nil, locale: String? = nil, timeZone: String? = nil, appId: String? = nil
    ) {
        self.appId = appId
        self.platform = platform
        self.isSimulator = isSimulator
        self.appVersion = appVersion
        self.installSource = installSource
        self.locale = locale
        self.timeZone = timeZone
    }
}
