import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Preferences")
struct PreferencesTests {
    struct Refused: Error {}

    @Test("STORE-01 a user with no stored preferences reads nil, so the server applies the defaults")
    func noStoredPreferences() async throws {
        try await withStore { (store) async throws in
            #expect(try await store.preferences(userID: "u1") == nil)
        }
    }

    @Test("STORE-02 updates persist and later reads return them")
    func updatesPersist() async throws {
        try await withStore { (store) async throws in
            let stored = try await store.updatePreferences(userID: "u1", initial: Preferences()) { preferences in
                preferences.categories["promotions"] = false
                preferences.osPermissionGranted = true
                preferences.quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
            }
            #expect(stored.categories == ["promotions": false])
            #expect(try await store.preferences(userID: "u1") == stored)

            // The next update starts from what is stored, not from `initial`.
            let next = try await store.updatePreferences(
                userID: "u1", initial: Preferences(globalEnabled: false)
            ) { preferences in
                #expect(preferences.globalEnabled)
                preferences.disabledTypes = ["promo.flash"]
                preferences.quietHours = nil
            }
            #expect(
                next
                    == Preferences(
                        globalEnabled: true, osPermissionGranted: true, categories: ["promotions": false],
                        disabledTypes: ["promo.flash"], quietHours: nil))
            #expect(try await store.preferences(userID: "u1") == next)
            #expect(try await store.preferences(userID: "u2") == nil)
        }
    }

    @Test("the stored value of a first update is the initial value as updated")
    func initialUsedWhenNone() async throws {
        try await withStore { (store) async throws in
            let initial = Preferences(globalEnabled: true, osPermissionGranted: nil, categories: ["orders": true])
            let stored = try await store.updatePreferences(userID: "u1", initial: initial) {
                $0.osPermissionGranted = false
            }
            #expect(stored == Preferences(osPermissionGranted: false, categories: ["orders": true]))
            #expect(try await store.preferences(userID: "u1")?.osPermissionGranted == false)
        }
    }

    @Test("a throwing update stores nothing")
    func throwingUpdate() async throws {
        try await withStore { (store) async throws in
            await #expect(throws: Refused.self) {
                try await store.updatePreferences(userID: "u1", initial: Preferences()) { preferences in
                    preferences.globalEnabled = false
                    throw Refused()
                }
            }
            #expect(try await store.preferences(userID: "u1") == nil)
        }
    }

    @Test("concurrent read-modify-writes lose no update")
    func concurrentUpdates() async throws {
        try await withStore { (store) async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        _ = try await store.updatePreferences(userID: "u1", initial: Preferences()) {
                            $0.disabledTypes.append("type.\(index)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try #require(try await store.preferences(userID: "u1"))
            #expect(Set(stored.disabledTypes) == Set((0..<40).map { "type.\($0)" }))
        }
    }
}
