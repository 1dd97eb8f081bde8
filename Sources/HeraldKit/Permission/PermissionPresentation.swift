/// How the app asks for notification permission, chosen by configuration: the two product
/// documents disagree, so both are supported.
public enum PermissionPresentation: String, Sendable, Equatable, CaseIterable {
    /// The "Know when your order ships" modal, offered on Home after sign-in (PERM-14) and
    /// after an order is confirmed (PERM-18).
    case softAskModal
    /// A banner on Home that opens a consent sheet (CONSENT-01..07).
    case homeBanner
    /// The OS dialog straight away when the signed-in shell mounts (PUSH-02); Home offers
    /// nothing.
    case askAtSignIn
}
