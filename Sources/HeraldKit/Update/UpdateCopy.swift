/// The words of the update prompt. From `spec/app-shell-screen-map.txt`: both titles and both
/// buttons. Written for HeraldKit: the messages.
public enum UpdateCopy {
    /// The version update's title (UPDATE-02).
    public static let versionTitle = "Update available"
    /// The version update's message.
    public static func versionMessage(installed: String, minimum: String?) -> String {
        guard let minimum else {
            return
                "You're on version \(installed), which is no longer supported. Update for the latest fixes and features."
        }
        return
            "You're on version \(installed), below the minimum supported version \(minimum). Update for the latest fixes and features."
    }
    /// The Play Store prompt's title (UPDATE-03).
    public static let storeTitle = "New version on Play Store"
    /// The Play Store prompt's message.
    public static let storeMessage =
        "This copy of the app wasn't installed from Google Play. Install it from the Play Store to keep getting updates."
    /// Opens the store listing.
    public static let updateNowButton = "Update Now"
    /// Hides the prompt for 7 days (UPDATE-04).
    public static let laterButton = "Later"
}
