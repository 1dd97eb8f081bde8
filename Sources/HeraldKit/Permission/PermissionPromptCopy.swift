/// Every word of the "Know when your order ships" modal, in one place.
///
/// From the screen map: the titles, the button labels and the toast titles. Written for
/// HeraldKit (the documents give none): ``askMessage``, ``blockedMessage``,
/// and the messages of ``deniedToast`` and ``errorToast``.
public enum PermissionPromptCopy {
    /// Title while the OS can still ask (PERM-08).
    public static let askTitle = "Stay in the loop"
    /// Body while the OS can still ask.
    public static let askMessage =
        "Turn on notifications to hear the moment your order ships, when it's out for delivery and when a reward is waiting for you."
    /// Primary button while the OS can still ask.
    public static let turnOnButton = "Turn on notifications"
    /// Secondary button: closes without asking (PERM-06).
    public static let notNowButton = "Not now"

    /// Title when the OS will not ask again (PERM-15).
    public static let blockedTitle = "Notifications are turned off"
    /// Body when the OS will not ask again.
    public static let blockedMessage =
        "To hear when your order ships, allow notifications for this app in Settings. You can change this anytime."
    /// Primary button when the OS will not ask again (PERM-15, PERM-17).
    public static let openSettingsButton = "Open Settings"

    /// Warning toast after an ordinary denial; it shows for the 3 s before the modal closes (PERM-04).
    public static let deniedToast = Toast(
        kind: .warning, title: "Notifications Disabled",
        message:
            "You won't get order updates for now. You can turn notifications on anytime in Notification Preferences.")
    /// Danger toast when the OS request throws (PERM-05).
    public static let errorToast = Toast(
        kind: .danger, title: "Error", message: "We couldn't ask for notification permission. Please try again later.")
}
