import HeraldModel

extension PreferencesForm {
    /// The form for `saved` preferences, the OS `permission` and the saves under way.
    init(
        saved: Preferences, permission: NotificationPermissionState, pending: PendingPreferenceSaves,
        catalog: Catalog, blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle
    ) {
        let isBlocked = permission.isBlockedBySystem
        let isPushOn = saved.isPushOn(with: permission)
        let pushSwitch = PreferenceSwitch(
            id: PreferenceSwitch.pushSwitchID, title: PreferencesCopy.pushSwitch,
            isOn: pending.push ?? isPushOn,
            isDisabled: pending.push != nil || (isBlocked && blockedSwitchStyle == .disabled),
            isLoading: pending.push != nil
        )
        let categories = catalog.categories.compactMap { category -> PreferenceSwitch? in
            guard category.canOptOut, let title = category.preferenceToggle else { return nil }
            let saving = pending.categories[category.id]
            return PreferenceSwitch(
                id: category.id, title: title, isOn: saving ?? saved.categories[category.id] ?? true,
                isDisabled: !isPushOn || saving != nil, isLoading: saving != nil,
                opacity: isPushOn ? 1 : PreferenceSwitch.dimmedOpacity
            )
        }
        self.init(
            blockedBanner: isBlocked
                ? PreferencesNotice(
                    title: PreferencesCopy.blockedTitle, message: PreferencesCopy.blockedMessage,
                    button: ButtonState(title: PreferencesCopy.openSettingsButton))
                : nil,
            pushSwitch: pushSwitch,
            categoriesHint: isPushOn ? nil : PreferencesCopy.enablePushFirst,
            categories: categories,
            footnote: PreferencesCopy.pushOnlyNote
        )
    }
}

extension Preferences {
    /// Whether pushes reach this device: the master switch is saved on and the OS allows them.
    func isPushOn(with permission: NotificationPermissionState) -> Bool {
        globalEnabled && permission.isGranted
    }
}
