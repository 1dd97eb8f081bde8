import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Preferences")
struct PreferencesTests {
    let catalog = Catalog.standard

    @Test("STORE-01 defaults enable every category and leave the OS decision undetermined")
    func defaults() throws {
        let preferences = Preferences.defaults(catalog: catalog)
        #expect(preferences.globalEnabled)
        #expect(preferences.osPermissionGranted == nil)
        #expect(preferences.categories == ["orders": true, "rewards": true, "promotions": true, "reminders": true])
        #expect(preferences.disabledTypes.isEmpty)
        #expect(preferences.quietHours == nil)
        // The wire form spells the undetermined decision as null.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(preferences)) as? [String: Any]
        #expect(json?["osPermissionGranted"] is NSNull)
        #expect(json?["quietHours"] is NSNull)
    }

    @Test("STORE-03 recording a grant or a denial sets the decision and the global switch follows")
    func recording() {
        let start = Preferences.defaults(catalog: catalog)
        let denied = start.recording(decision: false)
        #expect(denied.osPermissionGranted == false)
        #expect(denied.globalEnabled == false)
        #expect(denied.categories == start.categories)
        let granted = denied.recording(decision: true)
        #expect(granted.osPermissionGranted == true)
        #expect(granted.globalEnabled == true)
    }

    @Test("SYNC-01 revoked in system settings turns the stored global switch off")
    func syncRevoked() throws {
        let stored = Preferences(globalEnabled: true, osPermissionGranted: true)
        let synced = try #require(stored.syncing(status: .denied))
        #expect(synced.globalEnabled == false)
        #expect(synced.osPermissionGranted == false)
    }

    @Test("SYNC-02 granted in system settings turns the stored global switch on")
    func syncGranted() throws {
        let stored = Preferences(globalEnabled: false, osPermissionGranted: false)
        let synced = try #require(stored.syncing(status: .granted))
        #expect(synced.globalEnabled == true)
        #expect(synced.osPermissionGranted == true)
    }

    @Test(
        "SYNC-03 never asked means no sync and the switch keeps its default",
        arguments: [
            PermissionStatus.granted, .denied, .undetermined,
        ])
    func syncNeverAsked(status: PermissionStatus) {
        #expect(Preferences(globalEnabled: true, osPermissionGranted: nil).syncing(status: status) == nil)
        #expect(Preferences(globalEnabled: false, osPermissionGranted: nil).syncing(status: status) == nil)
    }

    @Test("sync leaves states that already agree alone, including a switch turned off in the app")
    func syncInStep() {
        #expect(Preferences(globalEnabled: true, osPermissionGranted: true).syncing(status: .granted) == nil)
        #expect(Preferences(globalEnabled: false, osPermissionGranted: true).syncing(status: .granted) == nil)
        #expect(Preferences(globalEnabled: false, osPermissionGranted: false).syncing(status: .denied) == nil)
    }

    @Test("sync forgets a decision the OS no longer has, keeping the switch")
    func syncReset() throws {
        let reset = try #require(
            Preferences(globalEnabled: true, osPermissionGranted: true).syncing(status: .undetermined))
        #expect(reset.osPermissionGranted == nil)
        #expect(reset.globalEnabled == true)
        let resetDenied = try #require(
            Preferences(globalEnabled: false, osPermissionGranted: false).syncing(status: .undetermined))
        #expect(resetDenied.osPermissionGranted == nil)
        #expect(resetDenied.globalEnabled == false)
    }

    @Test("PREFS-06 account category cannot be opted out")
    func accountCannotBeOptedOut() {
        expectInvalid("not_configurable", field: "categories.account") {
            try PreferencesPatch(categories: ["account": false]).validate(catalog: catalog)
        }
        expectInvalid("not_configurable", field: "categories.account") {
            try PreferencesPatch(categories: ["orders": false, "account": true]).validate(catalog: catalog)
        }
        #expect(!catalog.optOutCategoryIDs.contains("account"))
        #expect(Preferences.defaults(catalog: catalog).categories["account"] == nil)
        // Even a stored opt-out and a disabled account type do not stop account pushes.
        let preferences = Preferences(categories: ["account": false], disabledTypes: ["account.security"])
        let decision = PushPolicy.decide(
            preferences: preferences, type: "account.security", category: "account", catalog: catalog, now: Date())
        #expect(decision == .send)
    }

    @Test("PREFS-11 patch keeps disabled types no toggle owns")
    func patchKeepsDisabledTypes() {
        let stored = Preferences(
            categories: ["orders": true, "promotions": true],
            disabledTypes: ["account.tips", "legacy.digest", "promo.flash"])
        let saved = stored.applying(PreferencesPatch(categories: ["promotions": false]))
        #expect(saved.disabledTypes == ["account.tips", "legacy.digest", "promo.flash"])
        #expect(saved.categories == ["orders": true, "promotions": false])
        let master = stored.applying(PreferencesPatch(globalEnabled: false))
        #expect(master.disabledTypes == stored.disabledTypes)
        #expect(master.globalEnabled == false)
    }

    @Test("a patch replaces what it names and keeps the rest")
    func applying() {
        let window = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
        let stored = Preferences(
            globalEnabled: true, osPermissionGranted: true, categories: ["orders": false], disabledTypes: ["a.b"],
            quietHours: window)
        let kept = stored.applying(PreferencesPatch())
        #expect(kept == stored)
        let replaced = stored.applying(PreferencesPatch(disabledTypes: ["x.y", "x.y", "z"]))
        #expect(replaced.disabledTypes == ["x.y", "z"])
        #expect(replaced.quietHours == window)
        let cleared = stored.applying(PreferencesPatch(quietHours: .some(nil)))
        #expect(cleared.quietHours == nil)
        let changed = stored.applying(
            PreferencesPatch(quietHours: QuietHours(start: "23:00", end: "06:00", timeZone: "UTC")))
        #expect(changed.quietHours?.start == "23:00")
        #expect(changed.osPermissionGranted == true)
    }

    @Test("filled lists every opt-out category, keeps stored values and never lists account")
    func filled() {
        let stored = Preferences(categories: ["promotions": false, "retired": false, "account": false])
        let filled = stored.filled(catalog: catalog)
        #expect(
            filled.categories == [
                "orders": true, "rewards": true, "promotions": false, "reminders": true, "retired": false,
            ])
    }

    @Test("patch validation: unknown categories, disabled types, quiet hours")
    func patchValidation() throws {
        try PreferencesPatch(
            globalEnabled: false, categories: ["orders": false], disabledTypes: ["promo.flash"],
            quietHours: QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
        ).validate(catalog: catalog)
        try PreferencesPatch(quietHours: .some(nil)).validate(catalog: catalog)
        expectInvalid("unknown_category", field: "categories.shipping") {
            try PreferencesPatch(categories: ["shipping": false]).validate(catalog: catalog)
        }
        expectInvalid("too_many", field: "disabledTypes") {
            try PreferencesPatch(disabledTypes: (0...100).map { "t\($0)" }).validate(catalog: catalog)
        }
        try PreferencesPatch(disabledTypes: (0..<100).map { "t\($0)" }).validate(catalog: catalog)
        expectInvalid("invalid", field: "disabledTypes[1]") {
            try PreferencesPatch(disabledTypes: ["ok", "Not OK"]).validate(catalog: catalog)
        }
        expectInvalid("invalid", field: "quietHours.start") {
            try PreferencesPatch(quietHours: QuietHours(start: "24:00", end: "07:00", timeZone: "UTC")).validate(
                catalog: catalog)
        }
    }
}

@Suite("Preferences patch decoding")
struct PreferencesPatchDecodingTests {
    func decode(_ json: String) throws -> PreferencesPatch {
        try JSONDecoder().decode(PreferencesPatch.self, from: Data(json.utf8))
    }

    @Test("absent quietHours keeps, null clears, an object sets")
    func quietHoursTriState() throws {
        #expect(try decode("{}").quietHours == nil)
        #expect(try decode(#"{"quietHours":null}"#).quietHours == .some(nil))
        let set = try decode(#"{"quietHours":{"start":"22:00","end":"07:00","timeZone":"UTC"}}"#)
        #expect(set.quietHours == .some(QuietHours(start: "22:00", end: "07:00", timeZone: "UTC")))
    }

    @Test("named fields decode; unnamed ones stay nil")
    func fields() throws {
        let patch = try decode(
            #"{"globalEnabled":false,"categories":{"orders":false},"disabledTypes":["promo.flash"]}"#)
        #expect(
            patch
                == PreferencesPatch(globalEnabled: false, categories: ["orders": false], disabledTypes: ["promo.flash"])
        )
        #expect(try decode(#"{"globalEnabled":true}"#).categories == nil)
    }

    @Test(
        "unknown keys, wrong types and null switches are rejected",
        arguments: [
            #"{"globalEnabld":true}"#, #"{"globalEnabled":"yes"}"#, #"{"globalEnabled":null}"#,
            #"{"categories":["orders"]}"#,
            #"{"categories":{"orders":"off"}}"#, #"{"disabledTypes":"promo"}"#, #"{"disabledTypes":[1]}"#,
            #"{"quietHours":"22-07"}"#, #"{"quietHours":{"start":"22:00","end":"07:00"}}"#,
            #"{"quietHours":{"start":"22:00","end":"07:00","timeZone":"UTC","days":[1]}}"#, #"[]"#,
            #"{"categories":null}"#,
        ])
    func rejected(json: String) {
        #expect(throws: DecodingError.self) { try decode(json) }
    }

    @Test("an unknown key is named in the error")
    func unknownKeyNamed() {
        do {
            _ = try decode(#"{"globalEnabled":true,"colour":"red"}"#)
            Issue.record("decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("colour"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("encoding writes only what the patch names and null for a cleared window")
    func encoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(PreferencesPatch()), as: UTF8.self) == "{}")
        #expect(
            String(decoding: try encoder.encode(PreferencesPatch(quietHours: .some(nil))), as: UTF8.self)
                == #"{"quietHours":null}"#)
        let patch = PreferencesPatch(
            globalEnabled: true, categories: ["orders": false], disabledTypes: [],
            quietHours: QuietHours(start: "22:00", end: "07:00", timeZone: "UTC"))
        #expect(try decode(String(decoding: encoder.encode(patch), as: UTF8.self)) == patch)
    }
}
