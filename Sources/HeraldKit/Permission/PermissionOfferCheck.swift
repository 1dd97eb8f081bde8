extension HeraldDependencies {
    /// Reads the dismissal marker and the OS permission and applies ``PermissionOfferRule``
    /// (PERM-01): the OS state when an offer may be made, `nil` when not, also when the OS
    /// check fails.
    @MainActor func permissionOfferState() async -> NotificationPermissionState? {
        let dismissed = storage.flag(StorageKey.permissionPromptDismissed)
        let state = try? await permission.state()
        return PermissionOfferRule.shouldOffer(dismissed: dismissed, state: state, on: platform.platform) ? state : nil
    }
}
