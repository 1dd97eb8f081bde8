import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Push policy")
struct PushPolicyTests {
    let catalog = Catalog.standard
    let noon = local(2024, 6, 1, 12, 0, in: "Europe/Amsterdam")

    func decide(_ preferences: Preferences, _ type: String = "promo.flash", now: Date? = nil) -> PushDecision {
        PushPolicy.decide(
            preferences: preferences, type: type, category: catalog.category(forType: type), catalog: catalog,
            now: now ?? noon)
    }

    @Test("a snooze holds pushes until it ends, but the account category's and time-sensitive or critical ones")
    func snooze() {
        let until = noon.addingTimeInterval(3_600)
        let snoozed = Preferences(snoozedUntil: until)
        #expect(decide(snoozed) == .defer(until: until, snoozed: true))
        #expect(decide(snoozed, "account.login") == .send, "the account category is never held")
        for level in ["time-sensitive", "critical"] {
            #expect(
                PushPolicy.decide(
                    preferences: snoozed, type: "promo.flash", category: "promotions", catalog: catalog, now: noon,
                    interruptionLevel: level) == .send)
        }
        #expect(
            PushPolicy.decide(
                preferences: snoozed, type: "promo.flash", category: "promotions", catalog: catalog, now: noon,
                interruptionLevel: "passive") == .defer(until: until, snoozed: true))
        #expect(decide(Preferences(snoozedUntil: noon)) == .send, "a snooze ending now holds nothing")
        #expect(decide(Preferences(snoozedUntil: noon.addingTimeInterval(-60))) == .send)
        #expect(decide(Preferences(globalEnabled: false, snoozedUntil: until)) == .skip(reason: .globalOff))
    }

    @Test("a snooze ending inside quiet hours holds the push until they end (then quiet hours hold it, not the snooze)")
    func snoozeIntoQuietHours() {
        let window = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
        let lateSnooze = local(2024, 6, 1, 23, 0, in: "Europe/Amsterdam")
        let preferences = Preferences(quietHours: window, snoozedUntil: lateSnooze)
        #expect(decide(preferences) == .defer(until: local(2024, 6, 2, 7, 0, in: "Europe/Amsterdam"), snoozed: false))
        let earlySnooze = Preferences(quietHours: window, snoozedUntil: noon.addingTimeInterval(1_800))
        #expect(decide(earlySnooze) == .defer(until: noon.addingTimeInterval(1_800), snoozed: true))
    }

    @Test("defaults send")
    func defaultsSend() {
        #expect(decide(Preferences.defaults(catalog: catalog)) == .send)
        #expect(decide(Preferences()) == .send)
        #expect(decide(Preferences(), "unknown.type") == .send)
    }

    @Test("the master switch and a denied OS permission skip every push, account included")
    func globalAndOS() {
        #expect(decide(Preferences(globalEnabled: false)) == .skip(reason: .globalOff))
        #expect(decide(Preferences(globalEnabled: false), "account.login") == .skip(reason: .globalOff))
        #expect(decide(Preferences(osPermissionGranted: false)) == .skip(reason: .osDenied))
        #expect(decide(Preferences(osPermissionGranted: false), "account.login") == .skip(reason: .osDenied))
        #expect(decide(Preferences(osPermissionGranted: nil)) == .send)
        #expect(decide(Preferences(osPermissionGranted: true)) == .send)
    }

    @Test("a category switched off skips its pushes only")
    func categoryOff() {
        let preferences = Preferences(categories: ["promotions": false])
        #expect(decide(preferences, "promo.flash") == .skip(reason: .categoryOff))
        #expect(decide(preferences, "order.shipped") == .send)
        #expect(decide(preferences, "system.notice") == .send)
    }

    @Test("disabled types skip the type and its sub-types, not lookalikes")
    func typeDisabled() {
        let preferences = Preferences(disabledTypes: ["promo.flash", "system"])
        #expect(decide(preferences, "promo.flash") == .skip(reason: .typeDisabled))
        #expect(decide(preferences, "promo.flash.weekend") == .skip(reason: .typeDisabled))
        #expect(decide(preferences, "promo.flashy") == .send)
        #expect(decide(preferences, "promo.weekly") == .send)
        #expect(decide(preferences, "system.update") == .skip(reason: .typeDisabled))
    }

    @Test("PREFS-06 account pushes ignore category and type switches")
    func accountExempt() {
        let preferences = Preferences(categories: ["account": false], disabledTypes: ["account"])
        #expect(decide(preferences, "account.password_changed") == .send)
    }

    @Test("quiet hours over midnight defer to the end of the window")
    func quietHoursOvernight() {
        let window = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
        let preferences = Preferences(quietHours: window)
        let lateEvening = local(2024, 6, 1, 23, 30, in: "Europe/Amsterdam")
        #expect(decide(preferences, now: lateEvening) == .defer(until: local(2024, 6, 2, 7, 0, in: "Europe/Amsterdam")))
        let earlyMorning = local(2024, 6, 2, 6, 59, in: "Europe/Amsterdam")
        #expect(
            decide(preferences, now: earlyMorning) == .defer(until: local(2024, 6, 2, 7, 0, in: "Europe/Amsterdam")))
        #expect(decide(preferences, now: local(2024, 6, 2, 7, 0, in: "Europe/Amsterdam")) == .send)
        #expect(decide(preferences, now: local(2024, 6, 1, 21, 59, in: "Europe/Amsterdam")) == .send)
        #expect(decide(preferences, now: local(2024, 6, 1, 22, 0, in: "Europe/Amsterdam")) != .send)
    }

    @Test("quiet hours are read in the window's own time zone")
    func quietHoursZone() {
        let window = QuietHours(start: "09:00", end: "17:00", timeZone: "America/New_York")
        let preferences = Preferences(quietHours: window)
        // Noon in Amsterdam is 06:00 in New York: outside the window.
        #expect(decide(preferences) == .send)
        let tenInNewYork = local(2024, 6, 1, 10, 0, in: "America/New_York")
        #expect(
            decide(preferences, now: tenInNewYork) == .defer(until: local(2024, 6, 1, 17, 0, in: "America/New_York")))
    }

    @Test("a skip wins over quiet hours")
    func skipBeforeDefer() {
        let window = QuietHours(start: "00:00", end: "23:59", timeZone: "UTC")
        #expect(decide(Preferences(globalEnabled: false, quietHours: window)) == .skip(reason: .globalOff))
    }

    @Test("a window ending in a daylight-saving gap still ends after now")
    func quietHoursDSTGap() throws {
        // 2024-03-31 in Amsterdam: 02:00 jumps to 03:00, so 02:30 does not exist.
        let window = QuietHours(start: "01:00", end: "02:30", timeZone: "Europe/Amsterdam")
        let now = local(2024, 3, 31, 1, 30, in: "Europe/Amsterdam")
        guard case .defer(let until, _) = decide(Preferences(quietHours: window), now: now) else {
            Issue.record("expected a deferral")
            return
        }
        #expect(until > now)
        #expect(until.timeIntervalSince(now) <= 2 * 3_600)
    }

    @Test("quiet hours validation")
    func quietHoursValidation() throws {
        try QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam").validate()
        expectInvalid("invalid", field: "quietHours.start") {
            try QuietHours(start: "7:00", end: "08:00", timeZone: "UTC").validate()
        }
        expectInvalid("invalid", field: "quietHours.end") {
            try QuietHours(start: "07:00", end: "08:60", timeZone: "UTC").validate()
        }
        expectInvalid("invalid", field: "quietHours.end") {
            try QuietHours(start: "07:00", end: "07:00", timeZone: "UTC").validate()
        }
        expectInvalid("invalid", field: "quietHours.timeZone") {
            try QuietHours(start: "07:00", end: "08:00", timeZone: "Nowhere/Town").validate()
        }
        expectInvalid("required", field: "quietHours.timeZone") {
            try QuietHours(start: "07:00", end: "08:00", timeZone: "").validate()
        }
    }

    @Test("skip reasons have stable snake_case names")
    func reasons() {
        #expect(
            PushSkipReason.allCases.map(\.rawValue) == [
                "global_off", "os_denied", "category_off", "type_disabled", "source_muted", "throttled",
            ])
    }
}
