import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// A Notification Preferences screen over strict fakes: the preference calls answered by an
/// in-memory backend, the OS permission scripted, a test clock, a device in Amsterdam,
/// everything else failing unless a test says it expects it.
@MainActor final class PreferencesHarness {
    /// The device's time zone.
    static let timeZone = "Europe/Amsterdam"

    let backend: FakePreferencesBackend
    let clock: TestClock
    let os: FakePermissionSystem
    let settings = RecordingSettingsOpener()
    let navigator = RecordingNavigator()
    /// Analytics, where an OS decision is logged (EVENT-06, EVENT-07).
    let analytics = RecordingAnalytics()
    let model: PreferencesModel

    /// - Parameters:
    ///   - opensSettings: the test expects the system settings to open.
    ///   - presentsSignIn: the test expects the auth sheet.
    init(
        backend: FakePreferencesBackend = FakePreferencesBackend(),
        permission: NotificationPermissionState = .authorized,
        opensSettings: Bool = false, presentsSignIn: Bool = false,
        blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle = .opensSettings, clock: TestClock = TestClock(),
        timeZone: String? = PreferencesHarness.timeZone, api: (HeraldAPI) -> HeraldAPI = { $0 }
    ) {
        self.backend = backend
        self.clock = clock
        os = FakePermissionSystem(permission)
        var dependencies = HeraldDependencies.failing
        dependencies.api = api(backend.api())
        dependencies.clock = clock.dependency
        dependencies.platform.timeZone = timeZone
        dependencies.permission = os.client
        dependencies.analytics = analytics.client
        if opensSettings { dependencies.settings = settings.opener }
        if presentsSignIn { dependencies.navigator = navigator.navigator }
        model = PreferencesModel(
            dependencies: dependencies, catalog: backend.catalog, blockedSwitchStyle: blockedSwitchStyle)
    }

    /// A loaded screen: the model appeared and the backend answered. The backend's clock is
    /// the screen's.
    static func loaded(
        stored: Preferences? = nil, heardFrom: [ReceivedSource] = [],
        permission: NotificationPermissionState = .authorized, opensSettings: Bool = false,
        blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle = .opensSettings, clock: TestClock = TestClock()
    ) async -> PreferencesHarness {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: stored, heardFrom: heardFrom, now: { clock.now }),
            permission: permission, opensSettings: opensSettings, blockedSwitchStyle: blockedSwitchStyle, clock: clock)
        await harness.model.appeared()
        return harness
    }

    /// The form on screen; `nil` while the screen shows something else.
    var form: PreferencesForm? {
        if case .loaded(let form) = model.screen { form } else { nil }
    }

    /// The source switches on screen, top to bottom; empty while the section shows something else.
    var sourceRows: [PreferenceSwitch] {
        if case .switches(let rows)? = form?.sources.content { rows } else { [] }
    }

    /// Whether each category row is on, by category id.
    var rowStates: [String: Bool] {
        Dictionary(uniqueKeysWithValues: (form?.categories ?? []).map { ($0.id, $0.isOn) })
    }

    /// Lets work started on the main actor run up to its next real suspension.
    func settle() async {
        for _ in 0..<20 { await Task.yield() }
    }
}

extension Preferences {
    /// Stored preferences with the OS decision granted and push on, as after a grant.
    static func afterGrant(
        categories: [String: Bool] = [:], disabledTypes: [String] = [], quietHours: QuietHours? = nil,
        snoozedUntil: Date? = nil, digest: DigestSettings? = nil, mutedSources: [String] = []
    ) -> Preferences {
        Preferences(
            globalEnabled: true, osPermissionGranted: true, categories: categories, disabledTypes: disabledTypes,
            quietHours: quietHours, snoozedUntil: snoozedUntil, digest: digest, mutedSources: mutedSources)
    }

    /// Stored preferences with push switched off in the app, the OS allowing it.
    static func pushOff(
        quietHours: QuietHours? = nil, snoozedUntil: Date? = nil, digest: DigestSettings? = nil
    ) -> Preferences {
        Preferences(
            globalEnabled: false, osPermissionGranted: true, quietHours: quietHours, snoozedUntil: snoozedUntil,
            digest: digest)
    }
}

/// Save answers held back, so a test answers them in any order. Each answer carries only its
/// own patch applied, like an answer computed before the other save landed.
@MainActor final class SaveAnswers {
    private var waiting: [(Preferences, CheckedContinuation<Preferences, Never>)] = []

    func wait(_ answer: Preferences) async -> Preferences {
        await withCheckedContinuation { waiting.append((answer, $0)) }
    }

    func answer(at index: Int) {
        let (answer, continuation) = waiting[index]
        continuation.resume(returning: answer)
    }
}
