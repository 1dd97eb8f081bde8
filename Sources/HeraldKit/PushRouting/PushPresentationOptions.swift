/// How a push shows while the app is in the foreground; the app maps it onto
/// `UNNotificationPresentationOptions` (or its Android equivalent).
public struct PushPresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// A banner over the app.
    public static let banner = PushPresentationOptions(rawValue: 1 << 0)
    /// The push stays in Notification Center.
    public static let list = PushPresentationOptions(rawValue: 1 << 1)
    /// The push's sound plays.
    public static let sound = PushPresentationOptions(rawValue: 1 << 2)
    /// The app icon badge takes the push's count.
    public static let badge = PushPresentationOptions(rawValue: 1 << 3)
}
