import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Notification Preferences: sources")
@MainActor struct PreferencesSourcesTests {
    /// GitHub heard from last, then Jira, then the build bot.
    static let heardFrom = [
        source("jira", "Jira", minutesAgo: 30), source("github", "GitHub", minutesAgo: 5),
        source("ci", "Build bot", minutesAgo: 90),
    ]

    static func source(_ id: String, _ name: String, minutesAgo: Double) -> ReceivedSource {
        ReceivedSource(
            id: id, name: name, muted: false,
            lastReceivedAt: Date(timeIntervalSince1970: 1_800_000_000 - minutesAgo * 60))
    }

    @Test("one switch per source, most recently heard from first, on unless muted")
    func oneSwitchPerSource() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(mutedSources: ["jira"]), heardFrom: Self.heardFrom)

        #expect(harness.form?.sources.title == "Sources")
        #expect(
            harness.sourceRows == [
                PreferenceSwitch(id: "github", title: "GitHub", isOn: true),
                PreferenceSwitch(id: "jira", title: "Jira", isOn: false),
                PreferenceSwitch(id: "ci", title: "Build bot", isOn: true),
            ])
        #expect(harness.backend.sourceReads == 1)
    }

    @Test("no source has sent anything yet: the section says so")
    func empty() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant())
        #expect(
            harness.form?.sources
                == SourcesSection(title: "Sources", content: .empty(message: PreferencesCopy.sourcesEmpty)))
    }

    @Test("PREFS-08 the spinner stays until the sources answer too")
    func spinnerUntilTheSourcesAnswer() async {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: .afterGrant(), heardFrom: Self.heardFrom))
        harness.backend.hangNext(.sources)
        let appearing = Task { await harness.model.appeared() }
        await harness.settle()

        #expect(harness.backend.isHanging(.sources))
        #expect(harness.backend.reads == 1, "the preferences answered")
        #expect(harness.model.screen == .loading(message: "Loading your preferences"))

        harness.backend.resume(.sources)
        await appearing.value
        #expect(harness.sourceRows.map(\.id) == ["github", "jira", "ci"])
    }

    @Test("sources that fail to load do not hold up the screen; the section offers Try again, which loads them")
    func failedSourcesDoNotBlock() async {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: .afterGrant(), heardFrom: Self.heardFrom))
        harness.backend.failNext(.sources, with: HeraldAPIError.offline())
        await harness.model.appeared()

        #expect(harness.form?.pushSwitch.isOn == true)
        #expect(harness.form?.categories.count == 4)
        #expect(
            harness.form?.sources.content
                == .loadFailed(
                    PreferencesNotice(
                        title: "Couldn't load your sources", message: "Check your connection and try again.",
                        button: ButtonState(title: "Try again"))))
        #expect(harness.model.toast == nil)

        harness.backend.hangNext(.sources)
        let retrying = Task { await harness.model.sourcesTryAgainTapped() }
        await harness.settle()
        #expect(harness.form?.sources.content == .loading(message: "Loading your sources"))
        harness.backend.resume(.sources)
        await retrying.value
        #expect(harness.sourceRows.map(\.id) == ["github", "jira", "ci"])
    }

    @Test("a failed reload keeps the sources shown; a reload that answers shows the new ones")
    func reloadKeepsOrRefreshesTheSources() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(), heardFrom: Self.heardFrom)
        harness.backend.failNext(.sources)
        await harness.model.appeared()
        #expect(harness.sourceRows.map(\.id) == ["github", "jira", "ci"])

        harness.backend.heardFrom.append(Self.source("slack", "Slack", minutesAgo: 1))
        await harness.model.appeared()
        #expect(harness.sourceRows.map(\.id) == ["slack", "github", "jira", "ci"])
        await harness.model.sourcesTryAgainTapped()
        #expect(harness.backend.sourceReads == 3, "Try again does nothing while the sources show")
    }

    @Test("PREFS-01 a session that ends while the sources load brings back the sign-in gate")
    func sessionEndsDuringSourcesLoad() async {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: .afterGrant(), heardFrom: Self.heardFrom))
        harness.backend.failNext(.sources, with: HeraldAPIError.unauthenticated())
        await harness.model.appeared()
        guard case .signInRequired = harness.model.screen else {
            Issue.record("expected the sign-in gate, got \(harness.model.screen)")
            return
        }
    }

    @Test("a switch turned off mutes the source: the whole list is saved, mutes of sources not listed kept")
    func mutingSavesTheWholeList() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(mutedSources: ["old-integration", "jira"]), heardFrom: Self.heardFrom)
        await harness.model.sourceToggled(id: "github", isOn: false)
        await harness.model.sourceToggled(id: "jira", isOn: true)

        #expect(
            harness.backend.patches == [
                PreferencesPatch(mutedSources: ["old-integration", "jira", "github"]),
                PreferencesPatch(mutedSources: ["old-integration", "github"]),
            ])
        #expect(harness.backend.current.mutedSources == ["old-integration", "github"])
        #expect(harness.sourceRows.map(\.isOn) == [false, true, true])
        #expect(
            harness.backend.currentSources.items.map(\.muted) == [true, false, false],
            "GET /v1/me/sources mirrors the mutes")
    }

    @Test("a tap that changes nothing, or names a source not listed, saves nothing")
    func noChangeNoSave() async {
        let harness = await PreferencesHarness.loaded(
            stored: .afterGrant(mutedSources: ["jira"]), heardFrom: Self.heardFrom)
        await harness.model.sourceToggled(id: "github", isOn: true)
        await harness.model.sourceToggled(id: "jira", isOn: false)
        await harness.model.sourceToggled(id: "unknown", isOn: false)
        #expect(harness.backend.patches.isEmpty)
    }

    @Test("source switches saved side by side and answered out of order keep both changes")
    func sideBySideSaves() async {
        let answers = SaveAnswers()
        let stored = Preferences.afterGrant()
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: stored, heardFrom: Self.heardFrom)
        ) { api in
            var api = api
            api.updatePreferences = { patch in await answers.wait(stored.applying(patch)) }
            return api
        }
        await harness.model.appeared()
        let github = Task { await harness.model.sourceToggled(id: "github", isOn: false) }
        await harness.settle()
        let jira = Task { await harness.model.sourceToggled(id: "jira", isOn: false) }
        await harness.settle()
        #expect(harness.sourceRows.map(\.isLoading) == [true, true, false])

        // Jira's save sends GitHub's mute too, which is still saving; GitHub's answer, which
        // only knows its own, comes last.
        answers.answer(at: 1)
        await jira.value
        answers.answer(at: 0)
        await github.value

        #expect(harness.sourceRows.map(\.isOn) == [false, false, true])
    }

    @Test("PREFS-04 a source switch that fails to save shows Could not save preferences and goes back")
    func failedSaveReverts() async {
        let harness = await PreferencesHarness.loaded(stored: .afterGrant(), heardFrom: Self.heardFrom)
        harness.backend.hangNext(.update)
        let toggling = Task { await harness.model.sourceToggled(id: "jira", isOn: false) }
        await harness.settle()
        #expect(
            harness.sourceRows[1]
                == PreferenceSwitch(id: "jira", title: "Jira", isOn: false, isDisabled: true, isLoading: true))

        harness.backend.resume(.update, with: .failure(HeraldAPIError.server()))
        await toggling.value

        #expect(harness.sourceRows[1] == PreferenceSwitch(id: "jira", title: "Jira", isOn: true))
        #expect(harness.model.toast == PreferencesCopy.saveFailedToast)
        #expect(harness.backend.current.mutedSources.isEmpty)
    }

    @Test("PREFS-05 while push is off the source switches dim to 0.6 and save nothing")
    func dimmedWhilePushIsOff() async {
        let harness = await PreferencesHarness.loaded(stored: .pushOff(), heardFrom: Self.heardFrom)
        #expect(harness.sourceRows.count == 3)
        #expect(harness.sourceRows.allSatisfy { $0.opacity == 0.6 && $0.isDisabled })
        await harness.model.sourceToggled(id: "github", isOn: false)
        #expect(harness.backend.patches.isEmpty)
    }
}
