/// The analytics events of the banner and consent flow (EVENT-01..EVENT-07).
public enum ConsentEvent {
    /// The Home banner became visible (EVENT-01).
    public static let bannerShown = "notification_banner_shown"
    /// The Home banner was tapped (EVENT-02).
    public static let bannerTapped = "notification_banner_tapped"
    /// The consent sheet became visible (EVENT-03).
    public static let sheetShown = "notification_consent_sheet_shown"
    /// Accept was tapped (EVENT-04).
    public static let accepted = "notification_consent_accepted"
    /// Cancel was tapped or the sheet was swiped away (EVENT-05).
    public static let cancelled = "notification_consent_cancelled"
    /// The OS dialog answered with a grant (EVENT-06).
    public static let permissionGranted = "notification_permission_granted"
    /// The OS dialog answered with a denial (EVENT-07).
    public static let permissionDenied = "notification_permission_denied"
}
