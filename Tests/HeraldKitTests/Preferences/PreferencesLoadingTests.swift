import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Notification Preferences: loading and gates")
@MainActor struct PreferencesLoadingTests {
    @Test("PREFS-01 a guest sees Sign in to manage preferences and Sign in opens the auth sheet")
    func guestGate() async {
        let harness = PreferencesHarness(presentsSignIn: true) { api in
            var api = api
            api.preferences = { throw HeraldAPIError.unauthenticated() }
            return api
        }
        await harness.model.appeared()

        #expect(
            harness.model.screen
                == .signInRequired(
                    PreferencesNotice(
                        title: "Sign in to manage preferences", message: PreferencesCopy.signInMessage,
                        button: ButtonState(title: "Sign in"))))
        #expect(harness.os.stateReads == 0)
        harness.model.signInTapped()
        #expect(harness.navigator.steps == [.signIn])
    }

    @Test("PREFS-01 a session that ends during a save brings back the sign-in gate")
    func sessionEndsDuringSave() async {
        let harness = await PreferencesHarness.loaded()
        harness.backend.failNext(.update, with: HeraldAPIError.unauthenticated())
        await harness.model.categoryToggled("promotions", isOn: false)

        guard case .signInRequired = harness.model.screen else {
            Issue.record("expected the sign-in gate, got \(harness.model.screen)")
            return
        }
        #expect(harness.model.toast == nil)
    }

    @Test("PREFS-08 a centered spinner shows until the backend answers, and no default toggles")
    func spinnerUntilTheBackendAnswers() async {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: .afterGrant(categories: ["orders": false])))
        harness.backend.hangNext(.read)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()

        #expect(harness.backend.isHanging(.read))
        #expect(harness.model.screen == .loading(message: "Loading your preferences"))
        #expect(harness.form == nil)

        harness.backend.resume(.read)
        await appearing.value
        #expect(harness.rowStates["orders"] == false)
    }

    @Test("PREFS-08 coming back to the screen keeps the form up while it reloads")
    func reloadKeepsTheForm() async {
        let harness = await PreferencesHarness.loaded()
        let before = harness.form
        harness.backend.hangNext(.read)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()

        #expect(harness.backend.isHanging(.read))
        #expect(harness.form == before)
        harness.backend.resume(.read)
        await appearing.value
        #expect(harness.backend.reads == 2)
    }

    @Test("A failed first load offers Try again, which loads the preferences")
    func failedLoadRetries() async {
        let harness = PreferencesHarness()
        harness.backend.failNext(.read, with: HeraldAPIError.offline())
        await harness.model.appeared()
        #expect(
            harness.model.screen
                == .loadFailed(
                    PreferencesNotice(
                        title: "Couldn't load your preferences", message: "Check your connection and try again.",
                        button: ButtonState(title: "Try again"))))

        await harness.model.tryAgainTapped()
        #expect(harness.form != nil)
    }

    @Test("A failed reload keeps the form as it was")
    func failedReloadKeepsTheForm() async {
        let harness = await PreferencesHarness.loaded()
        let before = harness.form
        harness.backend.failNext(.read, with: HeraldAPIError.timeout())
        await harness.model.appeared()
        #expect(harness.form == before)
        #expect(harness.model.toast == nil)
    }

    @Test("STORE-01 a first visit shows the defaults as the server answers them: everything on, no decision")
    func defaultsOnFirstAccess() async {
        let harness = await PreferencesHarness.loaded(stored: nil)

        #expect(harness.backend.current == .defaults(catalog: .standard))
        #expect(harness.backend.current.osPermissionGranted == nil)
        #expect(harness.backend.stored == nil, "a read writes nothing")
        #expect(harness.form?.pushSwitch.isOn == true)
        #expect(harness.rowStates == ["orders": true, "rewards": true, "promotions": true, "reminders": true])
        #expect(harness.backend.syncs.isEmpty, "a decision never made is never synced (SYNC-03)")
    }

    @Test("SETTINGS-01 with permission granted each category has a toggle reflecting the stored preferences")
    func grantedShowsStoredToggles() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(categories: ["promotions": false, "reminders": false]))
        let form = harness.form

        #expect(form?.blockedBanner == nil)
        #expect(form?.pushSwitch == PreferenceSwitch(id: "push", title: "Push notifications", isOn: true))
        #expect(
            form?.categories == [
                PreferenceSwitch(id: "orders", title: "Order updates", isOn: true),
                PreferenceSwitch(id: "rewards", title: "Loyalty & rewards", isOn: true),
                PreferenceSwitch(id: "promotions", title: "Promotions & offers", isOn: false),
                PreferenceSwitch(id: "reminders", title: "Expiry reminders", isOn: false),
            ])
    }

    @Test("SETTINGS-04 a permission revoked in system settings shows on the next load")
    func externalRevocationShowsOnNextLoad() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        #expect(harness.form?.pushSwitch.isOn == true)

        harness.os.current = .blocked
        await harness.model.appeared()

        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.form?.blockedBanner?.title == "Notifications are blocked")
        #expect(harness.backend.syncs == [.denied])
        #expect(harness.backend.current.globalEnabled == false)
    }

    @Test("SETTINGS-04 a permission granted in system settings turns the switch back on at the next load")
    func externalGrantShowsOnNextLoad() async {
        let denied = Preferences(globalEnabled: false, osPermissionGranted: false)
        let harness = await PreferencesHarness.loaded(stored: denied, permission: .blocked)
        #expect(harness.form?.pushSwitch.isOn == false)

        harness.os.current = .authorized
        await harness.model.appeared()

        #expect(harness.form?.pushSwitch.isOn == true)
        #expect(harness.form?.blockedBanner == nil)
        #expect(harness.backend.syncs == [.granted])
    }

    @Test("SETTINGS-04 a switch turned off in the app stays off while the OS still allows notifications")
    func inAppOffSurvivesReload() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: true))
        await harness.model.appeared()
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.backend.syncs.isEmpty)
    }
}
