import HeraldKit

/// The system settings: counts how often the app's notification settings were opened.
@MainActor public final class RecordingSettingsOpener {
    public private(set) var opens = 0

    public init() {}

    public var opener: SettingsOpener {
        SettingsOpener(openNotificationSettings: { [self] in opens += 1 })
    }
}
