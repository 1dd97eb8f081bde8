/// Opens the system settings at this app's notification settings
/// (`UIApplication.openNotificationSettingsURLString`, Android's app notification settings).
public struct SettingsOpener: Sendable {
    public var openNotificationSettings: @MainActor @Sendable () async -> Void

    public init(openNotificationSettings: @escaping @MainActor @Sendable () async -> Void) {
        self.openNotificationSettings = openNotificationSettings
    }
}
