import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Notification Preferences: quiet hours")
@MainActor struct PreferencesQuietHoursTests {
    static let night = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")

    @Test("quiet hours are off at first, with no times shown")
    func offAtFirst() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        #expect(
            harness.form?.quietHours
                == QuietHoursSection(
                    toggle: PreferenceSwitch(id: "quietHours", title: "Quiet hours", isOn: false), start: nil,
                    end: nil, note: PreferencesCopy.quietHoursNote))
    }

    @Test("turned on, quiet hours start as 22:00 to 07:00 in the device's time zone")
    func defaultsWhenTurnedOn() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.quietHoursToggled(isOn: true)

        #expect(harness.backend.patches == [PreferencesPatch(quietHours: .some(Self.night))])
        #expect(harness.backend.current.quietHours == Self.night)
        let section = harness.form?.quietHours
        #expect(section?.toggle.isOn == true)
        #expect(
            section?.start
                == PreferenceTime(id: "quietHoursStart", title: "From", time: TimeOfDay(hour: 22, minute: 0)))
        #expect(section?.end == PreferenceTime(id: "quietHoursEnd", title: "To", time: TimeOfDay(hour: 7, minute: 0)))
        #expect(harness.model.toast == nil)
    }

    @Test("an app that names no time zone saves quiet hours in UTC")
    func withoutADeviceZone() async {
        let harness = PreferencesHarness(backend: FakePreferencesBackend(stored: .afterGrant()), timeZone: nil)
        await harness.model.appeared()
        await harness.model.quietHoursToggled(isOn: true)
        #expect(harness.backend.current.quietHours == QuietHours(start: "22:00", end: "07:00", timeZone: "GMT"))
    }

    @Test("a new start or end is saved with the other end kept, in the device's current time zone")
    func changingTheWindow() async {
        let inNewYork = QuietHours(start: "22:00", end: "07:00", timeZone: "America/New_York")
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(quietHours: inNewYork))
        await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 23, minute: 30))
        await harness.model.quietHoursEndChanged(to: TimeOfDay(hour: 6, minute: 45))

        #expect(
            harness.backend.patches == [
                PreferencesPatch(
                    quietHours: .some(QuietHours(start: "23:30", end: "07:00", timeZone: "Europe/Amsterdam"))),
                PreferencesPatch(
                    quietHours: .some(QuietHours(start: "23:30", end: "06:45", timeZone: "Europe/Amsterdam"))),
            ])
        #expect(harness.form?.quietHours.start?.time == TimeOfDay(hour: 23, minute: 30))
        #expect(harness.form?.quietHours.end?.time == TimeOfDay(hour: 6, minute: 45))
    }

    @Test("a start equal to the end, or a time that does not change, saves nothing")
    func emptyOrSameWindowIgnored() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(quietHours: Self.night))
        await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 7, minute: 0))
        await harness.model.quietHoursEndChanged(to: TimeOfDay(hour: 22, minute: 0))
        await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 22, minute: 0))
        await harness.model.quietHoursToggled(isOn: true)

        #expect(harness.backend.patches.isEmpty)
        #expect(harness.form?.quietHours.start?.time == TimeOfDay(hour: 22, minute: 0))
    }

    @Test("turned off, quiet hours are cleared; turned on again they start from 22:00 to 07:00")
    func offClears() async {
        let evening = QuietHours(start: "20:00", end: "08:00", timeZone: "Europe/Amsterdam")
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(quietHours: evening))
        await harness.model.quietHoursToggled(isOn: false)

        #expect(harness.backend.patches == [PreferencesPatch(quietHours: .some(nil))])
        #expect(harness.backend.current.quietHours == nil)
        #expect(harness.form?.quietHours.toggle.isOn == false)
        #expect(harness.form?.quietHours.start == nil)
        #expect(harness.form?.quietHours.end == nil)
        await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 21, minute: 0))
        #expect(harness.backend.patches.count == 1, "no window, no time to change")

        await harness.model.quietHoursToggled(isOn: true)
        #expect(harness.backend.current.quietHours == Self.night)
    }

    @Test("PREFS-04 quiet hours that fail to turn on show Could not save preferences and the switch goes back")
    func failedToggleReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.quietHoursToggled(isOn: true) }
        await harness.settle()
        let saving = harness.form?.quietHours
        #expect(saving?.toggle.isOn == true)
        #expect(saving?.toggle.isLoading == true)
        #expect(saving?.toggle.isDisabled == true)
        #expect(saving?.start?.isDisabled == true)
        await harness.model.quietHoursToggled(isOn: false)
        #expect(harness.backend.patches.count == 1, "taps while it saves are ignored")

        harness.backend.resume(.update, with: .failure(HeraldAPIError.server()))
        await toggling.value

        #expect(
            harness.form?.quietHours.toggle == PreferenceSwitch(id: "quietHours", title: "Quiet hours", isOn: false))
        #expect(harness.form?.quietHours.start == nil)
        #expect(harness.model.toast == PreferencesCopy.saveFailedToast)
        #expect(harness.backend.current.quietHours == nil)
    }

    @Test("PREFS-04 a new start that fails to save shows Could not save preferences and the time goes back")
    func failedTimeReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(quietHours: Self.night))
        harness.backend.hangNext(.update)
        let changing = Task { await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 23, minute: 0)) }
        await harness.settle()
        #expect(harness.form?.quietHours.start?.time == TimeOfDay(hour: 23, minute: 0))
        #expect(harness.form?.quietHours.start?.isLoading == true)

        harness.backend.resume(.update, with: .failure(HeraldAPIError.offline()))
        await changing.value

        #expect(harness.form?.quietHours.start?.time == TimeOfDay(hour: 22, minute: 0))
        #expect(harness.form?.quietHours.start?.isLoading == false)
        #expect(harness.model.toast?.title == "Could not save preferences")
    }

    @Test("PREFS-05 while push is off the quiet-hours rows dim to 0.6 and save nothing")
    func dimmedWhilePushIsOff() async {
        let harness = await PreferencesHarness.loaded(stored: .pushOff(quietHours: Self.night))
        let section = harness.form?.quietHours
        #expect(section?.toggle.opacity == 0.6 && section?.toggle.isDisabled == true)
        #expect(section?.start?.opacity == 0.6 && section?.start?.isDisabled == true)
        #expect(section?.end?.opacity == 0.6 && section?.end?.isDisabled == true)
        await harness.model.quietHoursToggled(isOn: false)
        await harness.model.quietHoursStartChanged(to: TimeOfDay(hour: 23, minute: 0))
        #expect(harness.backend.patches.isEmpty)
    }
}
