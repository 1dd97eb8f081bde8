import HeraldModel

/// When the app may offer to turn on notifications (PERM-01, PERM-12): a pure rule shared by
/// the Home offer, the order-confirmation offer and the Home banner.
public enum PermissionOfferRule {
    /// Whether to offer: the soft ask was not dismissed and the OS would still show its dialog
    /// to someone who has not decided. iOS: only while `notDetermined`. Android: only while
    /// `denied` with `canAskAgain` (how Android 13 reports an app that never asked). Never once
    /// granted. `state` is `nil` when reading the OS permission failed, which means no offer.
    public static func shouldOffer(
        dismissed: Bool, state: NotificationPermissionState?, on platform: DevicePlatform
    ) -> Bool {
        guard !dismissed, let state else { return false }
        switch platform {
        case .ios: return state.authorization == .notDetermined
        case .android: return state.authorization == .denied && state.canAskAgain
        }
    }
}
