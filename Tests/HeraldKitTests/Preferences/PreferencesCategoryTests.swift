import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Notification Preferences: category switches")
@MainActor struct PreferencesCategoryTests {
    @Test("PREFS-05 while push is off the rows dim to 0.6, their switches are disabled and a hint asks for push first")
    func rowsDimWhilePushIsOff() async {
        let harness = await PreferencesHarness.loaded(
            stored: Preferences(globalEnabled: false, osPermissionGranted: true))
        let form = harness.form

        #expect(form?.categoriesHint == "Turn on push notifications to choose which ones you get.")
        #expect(form?.categories.count == 4)
        #expect(form?.categories.allSatisfy { $0.opacity == 0.6 && $0.isDisabled } == true)
        await harness.model.categoryToggled("orders", isOn: false)
        #expect(harness.backend.patches.isEmpty, "a disabled row saves nothing")

        await harness.model.pushSwitchToggled(isOn: true)
        #expect(harness.form?.categoriesHint == nil)
        #expect(harness.form?.categories.allSatisfy { $0.opacity == 1 && !$0.isDisabled } == true)
    }

    @Test("PREFS-05 rows are dimmed too while the OS has not allowed notifications")
    func rowsDimWithoutPermission() async {
        let harness = await PreferencesHarness.loaded(permission: .notDetermined)
        #expect(harness.form?.pushSwitch.isOn == false)
        #expect(harness.form?.categories.allSatisfy { $0.opacity == PreferenceSwitch.dimmedOpacity } == true)
    }

    @Test("PREFS-06 the rows are the four opt-out categories; account messages have no switch and cannot be saved")
    func accountHasNoSwitch() async throws {
        let harness = await PreferencesHarness.loaded()

        #expect(
            harness.form?.categories.map(\.title) == [
                "Order updates", "Loyalty & rewards", "Promotions & offers", "Expiry reminders",
            ])
        #expect(harness.form?.categories.map(\.id) == ["orders", "rewards", "promotions", "reminders"])
        await harness.model.categoryToggled("account", isOn: false)
        #expect(harness.backend.patches.isEmpty)

        let api = harness.backend.api()
        let error = try await #require(throws: HeraldAPIError.self) {
            _ = try await api.updatePreferences(PreferencesPatch(categories: ["account": false]))
        }
        #expect(error.kind == .rejected)
        #expect(error.status == 400)
        #expect(error.code == "not_configurable")
        #expect(harness.backend.current.categories["account"] == nil)
    }

    @Test("PREFS-07 preferences change push only: turning a category off touches nothing but push preferences")
    func preferencesAffectPushOnly() async {
        // Every inbox call of the API fails the test: the model must not read or filter the inbox.
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        await harness.model.categoryToggled("promotions", isOn: false)

        #expect(harness.backend.patches == [PreferencesPatch(categories: ["promotions": false])])
        #expect(harness.form?.footnote.contains("every notification still appears in your inbox") == true)
        let saved = harness.backend.current
        let promo = PushPolicy.decide(
            preferences: saved, type: "promo.flash", category: "promotions", catalog: .standard, now: Date())
        let order = PushPolicy.decide(
            preferences: saved, type: "order.shipped", category: "orders", catalog: .standard, now: Date())
        #expect(promo == .skip(reason: .categoryOff), "the promotion is no longer pushed")
        #expect(order == .send)
    }

    @Test("PREFS-11 saving a toggle sends only that category and keeps disabled types no toggle owns")
    func disabledTypesAreKept() async {
        let disabledTypes = ["account.login.digest", "legacy.weekly", "promo.flash"]
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(categories: ["rewards": false], disabledTypes: disabledTypes))
        await harness.model.categoryToggled("orders", isOn: false)
        await harness.model.pushSwitchToggled(isOn: false)

        #expect(
            harness.backend.patches == [
                PreferencesPatch(categories: ["orders": false]), PreferencesPatch(globalEnabled: false),
            ])
        #expect(harness.backend.patches.allSatisfy { $0.disabledTypes == nil })
        #expect(harness.backend.current.disabledTypes == disabledTypes)
        #expect(harness.backend.current.categories["rewards"] == false)
    }

    @Test("PREFS-04 a failed category save shows Could not save preferences and the row goes back")
    func failedCategorySaveReverts() async {
        let harness = await PreferencesHarness.loaded()
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.categoryToggled("promotions", isOn: false) }
        await harness.settle()
        let saving = harness.form?.categories.first { $0.id == "promotions" }
        #expect(saving?.isOn == false)
        #expect(saving?.isLoading == true)
        #expect(saving?.isDisabled == true)

        harness.backend.resume(.update, with: .failure(HeraldAPIError.offline()))
        await toggling.value

        #expect(harness.rowStates["promotions"] == true)
        #expect(harness.model.toast?.title == "Could not save preferences")
    }

    @Test("STORE-02 a saved change persists and shows on the next load")
    func updatesPersist() async {
        let backend = FakePreferencesBackend(stored: .afterGrant())
        let first = PreferencesHarness(backend: backend)
        await first.model.appeared()
        await first.model.categoryToggled("promotions", isOn: false)
        #expect(first.rowStates["promotions"] == false)

        let next = PreferencesHarness(backend: backend)
        await next.model.appeared()
        #expect(next.rowStates == ["orders": true, "rewards": true, "promotions": false, "reminders": true])
    }

    @Test("Category saves that answer out of order keep both changes")
    func outOfOrderAnswers() async {
        let answers = SaveAnswers()
        let harness = PreferencesHarness(backend: FakePreferencesBackend(stored: .afterGrant())) { api in
            var api = api
            let stored = Preferences.afterGrant()
            api.updatePreferences = { patch in await answers.wait(stored.applying(patch)) }
            return api
        }
        await harness.model.appeared()
        let orders = Task { await harness.model.categoryToggled("orders", isOn: false) }
        await harness.settle()
        let promotions = Task { await harness.model.categoryToggled("promotions", isOn: false) }
        await harness.settle()

        answers.answer(at: 1)
        await promotions.value
        answers.answer(at: 0)
        await orders.value

        #expect(harness.rowStates == ["orders": false, "rewards": true, "promotions": false, "reminders": true])
    }
}
