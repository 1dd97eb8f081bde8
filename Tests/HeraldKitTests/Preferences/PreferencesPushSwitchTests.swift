import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Notification Preferences: the push master switch")
@MainActor struct PreferencesPushSwitchTests {
    @Test("PREFS-02 a refusal the OS can ask again about saves nothing and shows a warning toast")
    func refusalThatCanAskAgain() async {
        let harness = await PreferencesHarness.loaded(permission: .deniedCanAskAgain)
        harness.os.nextAnswer = .state(.deniedCanAskAgain)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.os.requests == 1)
        #expect(harness.backend.patches.isEmpty)
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.form?.blockedBanner == nil)
        #expect(
            harness.model.toast
                == Toast(
                    kind: .warning, title: "Notifications Disabled",
                    message: "Allow notifications when asked to get push notifications."))
    }

    @Test("PREFS-02 a final refusal saves nothing and shows the Open Settings banner instead of a toast")
    func finalRefusal() async {
        let harness = await PreferencesHarness.loaded(permission: .notDetermined)
        harness.os.nextAnswer = .state(.blocked)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.backend.patches.isEmpty)
        #expect(harness.model.toast == nil)
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.form?.blockedBanner?.button == ButtonState(title: "Open Settings"))
    }

    @Test("PREFS-02 the switch shows on and busy while the OS dialog is open, then goes back on refusal")
    func busyWhileTheDialogIsOpen() async {
        let harness = await PreferencesHarness.loaded(permission: .notDetermined)
        harness.os.nextAnswer = .pending
        let toggling = Task { await harness.model.pushSwitchToggled(isOn: true) }
        await harness.settle()

        #expect(harness.os.isDialogOpen)
        #expect(
            harness.form?.pushSwitch
                == PreferenceSwitch(
                    id: "push", title: "Push notifications", isOn: true, isDisabled: true, isLoading: true))
        await harness.model.pushSwitchToggled(isOn: false)
        #expect(harness.os.isDialogOpen, "taps on a busy switch are ignored")

        harness.os.respond(.state(.blocked))
        await toggling.value
        #expect(harness.form?.pushSwitch == PreferenceSwitch(id: "push", title: "Push notifications", isOn: false))
    }

    @Test("PREFS-02 a failing OS request shows an error toast and leaves push off")
    func failingRequest() async {
        let harness = await PreferencesHarness.loaded(permission: .notDetermined)
        harness.os.nextAnswer = .failure(HeraldAPIError.server())
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.model.toast?.kind == .danger)
        #expect(harness.model.toast?.title == "Error")
        #expect(harness.backend.patches.isEmpty)
        #expect(harness.backend.decisions.isEmpty)
        #expect(harness.form?.pushSwitch.isOn == false)
    }

    @Test("PREFS-03 saving the master switch on shows Push notifications enabled")
    func enabledToast() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: true))
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.backend.patches == [PreferencesPatch(globalEnabled: true)])
        #expect(harness.model.toast == Toast(kind: .success, title: "Push notifications enabled"))
        #expect(harness.form?.pushSwitch.isOn == true)
        harness.model.toastDismissed()
        #expect(harness.model.toast == nil)
    }

    @Test("PREFS-03 saving the master switch off shows Push notifications disabled")
    func disabledToast() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.pushSwitchToggled(isOn: false)

        #expect(harness.backend.patches == [PreferencesPatch(globalEnabled: false)])
        #expect(harness.model.toast == Toast(kind: .success, title: "Push notifications disabled"))
        #expect(harness.form?.pushSwitch.isOn == false)
    }

    @Test("PREFS-04 a failed save shows Could not save preferences and the switch goes back")
    func failedSaveReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.pushSwitchToggled(isOn: false) }
        await harness.settle()
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.form?.pushSwitch.isLoading == true)

        harness.backend.resume(.update, with: .failure(HeraldAPIError.server()))
        await toggling.value

        #expect(harness.form?.pushSwitch == PreferenceSwitch(id: "push", title: "Push notifications", isOn: true))
        #expect(
            harness.model.toast
                == Toast(
                    kind: .danger, title: "Could not save preferences", message: "Check your connection and try again.")
        )
        #expect(harness.backend.current.globalEnabled == true)
    }

    @Test(
        "PREFS-09 when the OS blocks notifications, Notifications are blocked with Open Settings shows above the switch"
    )
    func blockedBanner() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: false), permission: .blocked,
            opensSettings: true)

        #expect(
            harness.form?.blockedBanner
                == PreferencesNotice(
                    title: "Notifications are blocked", message: PreferencesCopy.blockedMessage,
                    button: ButtonState(title: "Open Settings")))
        await harness.model.openSettingsTapped()
        #expect(harness.settings.opens == 1)
    }

    @Test("PREFS-10 toggle opens Settings when the OS will not ask again")
    func toggleOpensSettings() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: false), permission: .blocked,
            opensSettings: true)
        #expect(harness.form?.pushSwitch.isDisabled == false)

        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.settings.opens == 1)
        #expect(harness.os.requests == 0)
        #expect(harness.backend.patches.isEmpty)
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.model.toast == nil)
    }

    @Test(
        "SETTINGS-02 with permission denied the global toggle is disabled, permission is explained, Open Settings shows"
    )
    func deniedDisablesTheSwitch() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: false), permission: .blocked,
            blockedSwitchStyle: .disabled)
        let form = harness.form

        #expect(
            form?.pushSwitch == PreferenceSwitch(id: "push", title: "Push notifications", isOn: false, isDisabled: true)
        )
        #expect(form?.blockedBanner?.message.hasPrefix("Permission is required") == true)
        #expect(form?.blockedBanner?.button == ButtonState(title: "Open Settings"))
    }

    @Test("SETTINGS-03 Open Settings opens the system settings at the app's notification settings")
    func openSettings() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: false), permission: .blocked,
            opensSettings: true, blockedSwitchStyle: .disabled)
        await harness.model.openSettingsTapped()

        #expect(harness.settings.opens == 1)
        #expect(harness.backend.patches.isEmpty)
    }

    @Test("STORE-03 a grant in the OS dialog is recorded and the global switch follows it")
    func grantIsRecorded() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false), permission: .notDetermined)
        harness.os.nextAnswer = .state(.authorized)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.backend.decisions == [true])
        #expect(harness.backend.patches.isEmpty, "the decision itself turns the global switch on")
        #expect(harness.backend.current.osPermissionGranted == true)
        #expect(harness.backend.current.globalEnabled == true)
        #expect(harness.form?.pushSwitch.isOn == true)
        #expect(harness.model.toast == Toast(kind: .success, title: "Push notifications enabled"))
    }

    @Test("STORE-03 a refusal in the OS dialog is recorded and the global switch follows it")
    func refusalIsRecorded() async {
        let harness = await PreferencesHarness.loaded(permission: .notDetermined)
        harness.os.nextAnswer = .state(.blocked)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.backend.decisions == [false])
        #expect(harness.backend.current.osPermissionGranted == false)
        #expect(harness.backend.current.globalEnabled == false)
    }

    @Test("STORE-03 a grant that cannot be recorded shows Could not save preferences")
    func grantNotRecorded() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false), permission: .notDetermined)
        harness.os.nextAnswer = .state(.authorized)
        harness.backend.failNext(.recordPermission)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.model.toast?.title == "Could not save preferences")
        #expect(harness.form?.pushSwitch.isOn == false)
    }

    @Test("EVENT-06 a grant in the master switch's OS dialog logs notification_permission_granted")
    func grantLogsTheEvent() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false), permission: .notDetermined)
        harness.os.nextAnswer = .state(.authorized)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.analytics.names == ["notification_permission_granted"])
    }

    @Test(
        "EVENT-07 a refusal in the master switch's OS dialog logs notification_permission_denied; no choice logs nothing",
        arguments: [
            (
                NotificationPermissionState.notDetermined, NotificationPermissionState.blocked,
                ["notification_permission_denied"]
            ),
            (.deniedCanAskAgain, .deniedCanAskAgain, ["notification_permission_denied"]),
            (.notDetermined, .notDetermined, []),
        ])
    func refusalLogsTheEvent(
        before: NotificationPermissionState, after: NotificationPermissionState, events: [String]
    ) async {
        let harness = await PreferencesHarness.loaded(permission: before)
        harness.os.nextAnswer = .state(after)
        await harness.model.pushSwitchToggled(isOn: true)

        #expect(harness.analytics.names == events)
        #expect(harness.backend.decisions == (events.isEmpty ? [] : [false]))
    }
}
