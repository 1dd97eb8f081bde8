import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Notification Preferences: daily digest")
@MainActor struct PreferencesDigestTests {
    @Test("the digest is off at first, with no time shown")
    func offAtFirst() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        #expect(
            harness.form?.digest
                == DigestSection(
                    toggle: PreferenceSwitch(id: "digest", title: "Daily digest", isOn: false), time: nil,
                    note: PreferencesCopy.digestNote))
    }

    @Test("turned on for the first time, the digest comes at 08:00 in the device's time zone")
    func defaultWhenFirstTurnedOn() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.digestToggled(isOn: true)

        #expect(
            harness.backend.patches == [
                PreferencesPatch(
                    digest: .some(DigestSettings(enabled: true, localTime: "08:00")),
                    timeZone: .some("Europe/Amsterdam"))
            ])
        #expect(harness.backend.current.digest == DigestSettings(enabled: true, localTime: "08:00"))
        #expect(harness.backend.current.timeZone == "Europe/Amsterdam")
        #expect(harness.form?.digest.toggle.isOn == true)
        #expect(
            harness.form?.digest.time
                == PreferenceTime(id: "digestTime", title: "Delivery time", time: TimeOfDay(hour: 8, minute: 0)))
    }

    @Test("a new time is saved; turned off the digest keeps it, and turned on again it comes back")
    func timeKeptWhileOff() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.digestToggled(isOn: true)
        await harness.model.digestTimeChanged(to: TimeOfDay(hour: 18, minute: 30))
        await harness.model.digestToggled(isOn: false)
        #expect(harness.form?.digest.time == nil)
        await harness.model.digestTimeChanged(to: TimeOfDay(hour: 9, minute: 0))
        await harness.model.digestToggled(isOn: true)

        let amsterdam: String?? = .some("Europe/Amsterdam")
        #expect(
            harness.backend.patches == [
                PreferencesPatch(digest: .some(DigestSettings(enabled: true, localTime: "08:00")), timeZone: amsterdam),
                PreferencesPatch(digest: .some(DigestSettings(enabled: true, localTime: "18:30")), timeZone: amsterdam),
                PreferencesPatch(digest: .some(DigestSettings(enabled: false, localTime: "18:30"))),
                PreferencesPatch(digest: .some(DigestSettings(enabled: true, localTime: "18:30")), timeZone: amsterdam),
            ])
        #expect(harness.form?.digest.time?.time == TimeOfDay(hour: 18, minute: 30))
    }

    @Test("an app that names no time zone leaves the user's time zone to the server")
    func withoutADeviceZone() async {
        let harness = PreferencesHarness(backend: FakePreferencesBackend(stored: .afterGrant()), timeZone: nil)
        await harness.model.appeared()
        await harness.model.digestToggled(isOn: true)
        #expect(
            harness.backend.patches == [
                PreferencesPatch(digest: .some(DigestSettings(enabled: true, localTime: "08:00")))
            ])
    }

    @Test("PREFS-04 a digest that fails to turn on shows Could not save preferences and the switch goes back")
    func failedToggleReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.digestToggled(isOn: true) }
        await harness.settle()
        #expect(harness.form?.digest.toggle.isOn == true)
        #expect(harness.form?.digest.toggle.isLoading == true)
        #expect(harness.form?.digest.time?.time == TimeOfDay(hour: 8, minute: 0))
        await harness.model.digestTimeChanged(to: TimeOfDay(hour: 7, minute: 0))
        #expect(harness.backend.patches.count == 1, "changes while it saves are ignored")

        harness.backend.resume(.update, with: .failure(HeraldAPIError.timeout()))
        await toggling.value

        #expect(harness.form?.digest.toggle == PreferenceSwitch(id: "digest", title: "Daily digest", isOn: false))
        #expect(harness.form?.digest.time == nil)
        #expect(harness.model.toast == PreferencesCopy.saveFailedToast)
        #expect(harness.backend.current.digest == nil)
    }

    @Test("PREFS-04 a new digest time that fails to save goes back")
    func failedTimeReverts() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(digest: DigestSettings(enabled: true, localTime: "07:15")))
        harness.backend.failNext(.update)
        await harness.model.digestTimeChanged(to: TimeOfDay(hour: 21, minute: 0))

        #expect(harness.form?.digest.time?.time == TimeOfDay(hour: 7, minute: 15))
        #expect(harness.model.toast?.title == "Could not save preferences")
    }

    @Test("PREFS-05 while push is off the digest rows dim to 0.6 and save nothing")
    func dimmedWhilePushIsOff() async {
        let harness = await PreferencesHarness.loaded(
            stored: .pushOff(digest: DigestSettings(enabled: true, localTime: "07:15")))
        #expect(harness.form?.digest.toggle.opacity == 0.6 && harness.form?.digest.toggle.isDisabled == true)
        #expect(harness.form?.digest.time?.opacity == 0.6 && harness.form?.digest.time?.isDisabled == true)
        await harness.model.digestToggled(isOn: false)
        await harness.model.digestTimeChanged(to: TimeOfDay(hour: 9, minute: 0))
        #expect(harness.backend.patches.isEmpty)
    }
}
