import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

/// A reload runs on every return to the screen (SETTINGS-04) while the form stays
/// interactive, so saves can land while it runs.
@Suite("Notification Preferences: saves during a reload")
@MainActor struct PreferencesReloadTests {
    @Test("SETTINGS-04 a category saved while the reload's older answer is on its way stays saved")
    func categorySavedDuringReloadStays() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.read, .afterServing)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()
        #expect(harness.backend.isHanging(.read))

        await harness.model.categoryToggled("promotions", isOn: false)
        #expect(harness.rowStates["promotions"] == false)
        harness.backend.resume(.read)
        await appearing.value

        #expect(harness.backend.current.categories["promotions"] == false)
        #expect(harness.rowStates["promotions"] == false, "the reload's older answer does not flip the switch back")
        // Later taps compare against what the server holds: off again saves nothing, on saves.
        await harness.model.categoryToggled("promotions", isOn: false)
        #expect(harness.backend.patches == [PreferencesPatch(categories: ["promotions": false])])
        await harness.model.categoryToggled("promotions", isOn: true)
        #expect(harness.backend.patches.last == PreferencesPatch(categories: ["promotions": true]))
        #expect(harness.rowStates["promotions"] == true)
    }

    @Test(
        "SETTINGS-04 snooze, a muted source, quiet hours and the digest saved while the reload's older answer is on its way stay saved"
    )
    func attentionSavedDuringReloadStays() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(),
            heardFrom: [
                ReceivedSource(
                    id: "github", name: "GitHub", muted: false,
                    lastReceivedAt: Date(timeIntervalSince1970: 1_799_999_000))
            ])
        harness.backend.hangNext(.read, .afterServing)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()
        #expect(harness.backend.isHanging(.read))

        await harness.model.snoozeChosen(.oneHour)
        await harness.model.sourceToggled(id: "github", isOn: false)
        await harness.model.quietHoursToggled(isOn: true)
        await harness.model.digestToggled(isOn: true)
        harness.backend.resume(.read)
        await appearing.value

        let form = harness.form
        #expect(form?.snooze.status == "Snoozed until 10:00")
        #expect(harness.sourceRows.map(\.isOn) == [false])
        #expect(form?.quietHours.toggle.isOn == true)
        #expect(form?.digest.toggle.isOn == true)
        await harness.clock.settle()
        #expect(harness.clock.sleeperCount == 1, "the snooze's timer survived the reload")
    }

    @Test("SETTINGS-04 a save sent before the reload and answered during it is not undone by the reload")
    func saveAnsweredDuringReloadStays() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.categoryToggled("orders", isOn: false) }
        await harness.settle()
        harness.backend.hangNext(.read, .afterServing)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()
        #expect(harness.backend.isHanging(.read))

        // The server answered the read before it saved the switch.
        harness.backend.resume(.update)
        await toggling.value
        harness.backend.resume(.read)
        await appearing.value

        #expect(harness.backend.current.categories["orders"] == false)
        #expect(harness.rowStates["orders"] == false)
    }

    @Test("SETTINGS-04 the master switch saved while the reload's permission sync answers stays as saved")
    func pushSavedDuringSyncStays() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: false), permission: .blocked)
        harness.os.current = .authorized
        harness.backend.hangNext(.syncPermission, .afterServing)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()
        #expect(harness.backend.isHanging(.syncPermission))
        #expect(harness.backend.current.globalEnabled == true, "the sync turned push on at the server")

        // The person turns push on, then off again, while the sync's answer is on its way.
        await harness.model.pushSwitchToggled(isOn: true)
        await harness.model.pushSwitchToggled(isOn: false)
        harness.backend.resume(.syncPermission)
        await appearing.value

        #expect(harness.backend.current.globalEnabled == false)
        #expect(harness.form?.pushSwitch.isOn == false, "the sync's older answer does not flip the switch back")
        await harness.model.pushSwitchToggled(isOn: false)
        #expect(
            harness.backend.patches == [PreferencesPatch(globalEnabled: true), PreferencesPatch(globalEnabled: false)])
    }

    @Test("PREFS-01 a session that ends during a reload keeps the sign-in gate over the reload's answer")
    func sessionEndedDuringReloadWins() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.read, .afterServing)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()

        harness.backend.failNext(.update, with: HeraldAPIError.unauthenticated())
        await harness.model.categoryToggled("promotions", isOn: false)
        harness.backend.resume(.read)
        await appearing.value

        guard case .signInRequired = harness.model.screen else {
            Issue.record("expected the sign-in gate, got \(harness.model.screen)")
            return
        }
    }
}
