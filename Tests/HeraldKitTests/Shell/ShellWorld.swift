import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// The fakes an app-shell test drives: a test clock, device storage, the router and the app's
/// own services. ``dependencies`` starts from ``HeraldDependencies/failing`` with only those
/// installed, so any other call fails the test.
@MainActor final class ShellWorld {
    let clock = TestClock()
    let storage = InMemoryKeyValueStore()
    let navigator = RecordingNavigator()
    let shell = RecordingAppShell()
    var dependencies: HeraldDependencies = .failing

    init(
        platform: DevicePlatform = .ios, appVersion: String = "1.0.0",
        installSource: PlatformFacts.InstallSource? = .appStore
    ) {
        dependencies.clock = clock.dependency
        dependencies.storage = storage.store
        dependencies.navigator = navigator.navigator
        dependencies.platform = PlatformFacts(
            platform: platform, appVersion: appVersion, installSource: installSource)
    }

    /// App-config as the server answers it for this install, with `document` stored.
    func appConfig(_ document: AppConfigDocument) throws -> AppConfigResponse {
        try FakeAppConfigBackend(document).response(for: dependencies.platform)
    }

    /// App-config allowing links under `prefixes`.
    func appConfig(allowing prefixes: [String]) throws -> AppConfigResponse {
        try appConfig(AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: prefixes)))
    }
}
