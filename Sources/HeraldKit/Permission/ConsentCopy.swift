/// Every word of the Home banner and its consent sheet, in one place.
///
/// The requirements name the Cancel and Accept buttons and ask for promotional copy; the rest
/// is written for HeraldKit.
public enum ConsentCopy {
    /// The banner's headline.
    public static let bannerTitle = "Never miss a delivery"
    /// The banner's promotional line.
    public static let bannerMessage = "Turn on notifications for order updates, rewards and offers picked for you."

    /// The asset name of the sheet's artwork.
    public static let sheetArtwork = "notification-consent"
    /// The sheet's headline.
    public static let sheetTitle = "Know the moment it ships"
    /// The sheet's body.
    public static let sheetMessage =
        "We'll tell you when your order ships and arrives, when a reward lands and when a deal is worth your time. You can change this anytime in Notification Preferences."
    /// The outline button that closes the sheet.
    public static let cancelButton = "Cancel"
    /// The primary button that shows the OS dialog.
    public static let acceptButton = "Accept"

    /// Success toast after a grant (CONSENT-05).
    public static let grantedToast = Toast(
        kind: .success, title: "Notifications are on", message: "We'll keep you posted on your orders and rewards.")
    /// Toast after a denial (CONSENT-06).
    public static let deniedToast = Toast(
        kind: .warning, title: "Notifications are off", message: "You can turn them on anytime in Settings.")
    /// Danger toast when the OS request throws: the same as the soft-ask modal's.
    public static let errorToast = PermissionPromptCopy.errorToast
}
