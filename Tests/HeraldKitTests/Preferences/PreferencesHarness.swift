import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// A Notification Preferences screen over strict fakes: the preference calls answered by an
/// in-memory backend, the OS permission scripted, everything else failing unless a test
/// says it expects it.
@MainActor final class PreferencesHarness {
    let backend: FakePreferencesBackend
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
        blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle = .opensSettings,
        api: (HeraldAPI) -> HeraldAPI = { $0 }
    ) {
        self.backend = backend
        os = FakePermissionSystem(permission)
        var dependencies = HeraldDependencies.failing
        dependencies.api = api(backend.api())
        dependencies.permission = os.client
        dependencies.analytics = analytics.client
        if opensSettings { dependencies.settings = settings.opener }
        if presentsSignIn { dependencies.navigator = navigator.navigator }
        model = PreferencesModel(
            dependencies: dependencies, catalog: backend.catalog, blockedSwitchStyle: blockedSwitchStyle)
    }

    /// A loaded screen: the model appeared and the backend answered.
    static func loaded(
        stored: Preferences? = nil, permission: NotificationPermissionState = .authorized,
        opensSettings: Bool = false, blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle = .opensSettings
    ) async -> PreferencesHarness {
        let harness = PreferencesHarness(
            backend: FakePreferencesBackend(stored: stored), permission: permission, opensSettings: opensSettings,
            blockedSwitchStyle: blockedSwitchStyle)
        await harness.model.appeared()
        return harness
    }

    /// The form on screen; `nil` while the screen shows something else.
    var form: PreferencesForm? {
        if case .loaded(let form) = model.screen { form } else { nil }
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
    static func afterGrant(categories: [String: Bool] = [:], disabledTypes: [String] = []) -> Preferences {
        Preferences(
            globalEnabled: true, osPermissionGranted: true, categories: categories, disabledTypes: disabledTypes)
    }
}
