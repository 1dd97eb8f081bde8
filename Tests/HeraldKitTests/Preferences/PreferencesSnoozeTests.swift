import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Observation
import Synchronization
import Testing

/// The test clock starts on Friday 15 January 2027 at 08:00 UTC: 09:00 on the device's clock
/// in Amsterdam.
@Suite("Notification Preferences: snooze")
@MainActor struct PreferencesSnoozeTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    /// Saturday 16 January 2027, 08:00 in Amsterdam.
    static let saturdayMorning = Date(timeIntervalSince1970: 1_800_082_800)

    @Test("a first visit is not snoozed and offers 1 hour, Until tomorrow morning and Off")
    func notSnoozed() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        #expect(
            harness.form?.snooze
                == SnoozeSection(
                    title: "Snooze", status: "Not snoozed", isSnoozed: false,
                    choices: [
                        SnoozeOption(choice: .oneHour, title: "1 hour"),
                        SnoozeOption(choice: .untilTomorrowMorning, title: "Until tomorrow morning"),
                        SnoozeOption(choice: .off, title: "Off"),
                    ],
                    note: PreferencesCopy.snoozeNote))
        await harness.clock.settle()
        #expect(harness.clock.sleeperCount == 0)
    }

    @Test("1 hour saves a snooze ending an hour from now and shows Snoozed until that time")
    func oneHour() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.snoozeChosen(.oneHour)

        let end = Self.start.addingTimeInterval(3600)
        #expect(harness.backend.patches == [PreferencesPatch(snoozedUntil: .some(end))])
        #expect(harness.backend.current.snoozedUntil == end)
        #expect(harness.form?.snooze.status == "Snoozed until 10:00")
        #expect(harness.form?.snooze.isSnoozed == true)
        #expect(harness.model.toast == nil, "the row shows the result; no toast")
    }

    @Test(
        "Until tomorrow morning ends at 08:00 on the device's clock: today's while it is still night, tomorrow's from 04:00",
        arguments: [
            // (now, the expected end) in UTC seconds, and the status; Amsterdam is UTC+1 in January.
            (1_800_000_000, 1_800_082_800, "Snoozed until 08:00"),  // Friday 09:00: Saturday 08:00
            (1_799_973_000, 1_799_996_400, "Snoozed until 08:00"),  // Friday 01:30: Friday 08:00, 6.5 h on
            (1_799_981_940, 1_799_996_400, "Snoozed until 08:00"),  // Friday 03:59: Friday 08:00
            // Friday 04:00 and 07:30: Saturday 08:00, more than a day on, so the day shows (a bare
            // 08:00 would read as today's).
            (1_799_982_000, 1_800_082_800, "Snoozed until Sat 16 Jan, 08:00"),
            (1_799_994_600, 1_800_082_800, "Snoozed until Sat 16 Jan, 08:00"),
            (1_800_046_800, 1_800_082_800, "Snoozed until 08:00"),  // Friday 22:00: Saturday 08:00
        ])
    func untilTomorrowMorning(now: Int, end: Int, status: String) async {
        let clock = TestClock(start: Date(timeIntervalSince1970: TimeInterval(now)))
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(), clock: clock)
        await harness.model.snoozeChosen(.untilTomorrowMorning)

        let expected = Date(timeIntervalSince1970: TimeInterval(end))
        #expect(harness.backend.patches == [PreferencesPatch(snoozedUntil: .some(expected))])
        #expect(harness.form?.snooze.status == status)
    }

    @Test("the morning is the device's: in New York, Until tomorrow morning ends at 08:00 there")
    func morningInTheDevicesZone() async {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: .afterGrant()), timeZone: "America/New_York")
        await harness.model.appeared()
        // 03:00 in New York (UTC-5): still night, so today's 08:00, 13:00 UTC.
        await harness.model.snoozeChosen(.untilTomorrowMorning)
        #expect(
            harness.backend.current.snoozedUntil == Self.start.addingTimeInterval(5 * 3600),
            "\(String(describing: harness.backend.current.snoozedUntil))")
        #expect(harness.form?.snooze.status == "Snoozed until 08:00")
    }

    @Test("Off ends the snooze at once; Off while not snoozed saves nothing")
    func off() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(snoozedUntil: Self.saturdayMorning))
        #expect(harness.form?.snooze.status == "Snoozed until 08:00")
        await harness.clock.settle()
        #expect(harness.clock.sleeperCount == 1, "a timer waits for the end")

        await harness.model.snoozeChosen(.off)
        #expect(harness.backend.patches == [PreferencesPatch(snoozedUntil: .some(nil))])
        #expect(harness.backend.current.snoozedUntil == nil)
        #expect(harness.form?.snooze.status == "Not snoozed")
        #expect(harness.form?.snooze.isSnoozed == false)
        #expect(harness.clock.sleeperCount == 0, "the timer is gone")

        await harness.model.snoozeChosen(.off)
        #expect(harness.backend.patches.count == 1)
    }

    @Test("a snooze that runs out on the clock shows Not snoozed without a reload, and the screen is told")
    func expiresOnTheClock() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.snoozeChosen(.oneHour)
        #expect(harness.form?.snooze.status == "Snoozed until 10:00")

        await harness.clock.advance(by: .seconds(59 * 60))
        #expect(harness.form?.snooze.status == "Snoozed until 10:00")

        let changed = ObservedChange()
        withObservationTracking {
            _ = harness.model.screen
        } onChange: {
            changed.happen()
        }
        await harness.clock.advance(by: .seconds(60))
        #expect(changed.happened, "a view showing the screen redraws")
        #expect(harness.form?.snooze.status == "Not snoozed")
        #expect(harness.form?.snooze.isSnoozed == false)
        #expect(harness.backend.reads == 1)
        #expect(harness.backend.patches.count == 1)
    }

    @Test("a stored snooze already over shows Not snoozed and sets no timer")
    func storedSnoozeOver() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(snoozedUntil: Self.start.addingTimeInterval(-60)))
        #expect(harness.form?.snooze.status == "Not snoozed")
        await harness.clock.settle()
        #expect(harness.clock.sleeperCount == 0)
        await harness.model.snoozeChosen(.off)
        #expect(harness.backend.patches.isEmpty)
    }

    @Test("a snooze ending more than a day from now shows its day: Snoozed until Mon 18 Jan, 08:00")
    func farSnoozeShowsTheDay() async {
        let monday = Date(timeIntervalSince1970: 1_800_255_600)
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(snoozedUntil: monday))
        #expect(harness.form?.snooze.status == "Snoozed until Mon 18 Jan, 08:00")
    }

    @Test("a snooze ending later than a reload left it follows the new end")
    func reloadMovesTheEnd() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.snoozeChosen(.oneHour)
        // Another device moved the snooze to the morning.
        harness.backend.stored?.snoozedUntil = Self.saturdayMorning
        await harness.model.appeared()
        await harness.clock.advance(by: .seconds(3600))

        #expect(harness.form?.snooze.status == "Snoozed until 08:00")
        #expect(harness.clock.sleeperCount == 1)
        await harness.clock.run()
        #expect(harness.form?.snooze.status == "Not snoozed")
    }

    @Test("PREFS-04 a failed snooze shows Could not save preferences and the row goes back")
    func failedSnoozeReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        harness.backend.hangNext(.update)
        let choosing = Task { await harness.model.snoozeChosen(.oneHour) }
        await harness.settle()
        let saving = harness.form?.snooze
        #expect(saving?.status == "Snoozed until 10:00")
        #expect(saving?.isLoading == true)
        #expect(saving?.isDisabled == true)
        await harness.model.snoozeChosen(.untilTomorrowMorning)
        #expect(harness.backend.patches.count == 1, "taps while a choice saves are ignored")

        harness.backend.resume(.update, with: .failure(HeraldAPIError.offline()))
        await choosing.value

        #expect(harness.form?.snooze.status == "Not snoozed")
        #expect(harness.form?.snooze.isLoading == false)
        #expect(harness.model.toast == PreferencesCopy.saveFailedToast)
        #expect(harness.backend.current.snoozedUntil == nil)
        await harness.clock.settle()
        #expect(harness.clock.sleeperCount == 0)
    }

    @Test("PREFS-04 a failed Off keeps the snooze on screen and its timer")
    func failedOffKeepsTheSnooze() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(snoozedUntil: Self.saturdayMorning))
        harness.backend.failNext(.update)
        await harness.model.snoozeChosen(.off)

        #expect(harness.form?.snooze.status == "Snoozed until 08:00")
        #expect(harness.model.toast?.title == "Could not save preferences")
        await harness.clock.advance(by: .seconds(23 * 3600))
        #expect(harness.form?.snooze.status == "Not snoozed")
    }

    @Test("PREFS-05 while push is off the snooze row dims to 0.6 and its choices save nothing")
    func dimmedWhilePushIsOff() async {
        let harness = await PreferencesHarness.loaded(stored: .pushOff(snoozedUntil: Self.saturdayMorning))
        let snooze = harness.form?.snooze
        #expect(snooze?.opacity == 0.6)
        #expect(snooze?.isDisabled == true)
        #expect(snooze?.status == "Snoozed until 08:00", "the state still shows")
        await harness.model.snoozeChosen(.oneHour)
        await harness.model.snoozeChosen(.off)
        #expect(harness.backend.patches.isEmpty)

        await harness.model.pushSwitchToggled(isOn: true)
        #expect(harness.form?.snooze.opacity == 1)
        #expect(harness.form?.snooze.isDisabled == false)
    }
}

/// Whether an observation fired; written from the tracking's `onChange`, which may run off the
/// main actor.
private final class ObservedChange: Sendable {
    private let state = Mutex(false)
    var happened: Bool { state.withLock { $0 } }
    func happen() { state.withLock { $0 = true } }
}
