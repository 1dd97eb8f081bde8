import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// The fakes a permission or registration test drives. ``dependencies`` starts from
/// ``HeraldDependencies/failing`` with only the clock, the OS permission (which fails on an
/// unscripted request), storage and the navigator installed; a test installs every other
/// call it expects with the `allow...` methods.
@MainActor final class PermissionWorld {
    let clock = TestClock()
    let system: FakePermissionSystem
    let storage = InMemoryKeyValueStore()
    let navigator = RecordingNavigator()
    let backend = FakeRegistrationBackend()
    let settings = RecordingSettingsOpener()
    let analytics = RecordingAnalytics()
    let tokens = FakePushTokens()
    var dependencies: HeraldDependencies = .failing

    init(_ state: NotificationPermissionState = .notDetermined, platform: DevicePlatform = .ios) {
        system = FakePermissionSystem(state)
        dependencies.clock = clock.dependency
        dependencies.permission = system.client
        dependencies.storage = storage.store
        dependencies.navigator = navigator.navigator
        dependencies.platform.platform = platform
    }

    /// Installs `POST /v1/me/permission`, and analytics, where every decision is logged
    /// (EVENT-06, EVENT-07).
    func allowRecordingDecisions() {
        dependencies.api.recordPermission = backend.recordPermission
        allowAnalytics()
    }
    /// Installs the system settings opener.
    func allowOpeningSettings() { dependencies.settings = settings.opener }
    /// Installs analytics.
    func allowAnalytics() { dependencies.analytics = analytics.client }
    /// Installs `POST /v1/me/permission/sync`.
    func allowSync() { dependencies.api.syncPermission = backend.syncPermission }
    /// Installs the OS push token (handing out `token`) and `POST /v1/me/devices`.
    func allowRegistering(_ token: PushToken) {
        tokens.token = token
        dependencies.pushToken = tokens.client
        dependencies.api.registerDevice = backend.registerDevice
    }
    /// Installs `DELETE /v1/me/devices/{token}`.
    func allowUnregistering() { dependencies.api.unregisterDevice = backend.unregisterDevice }

    /// The token stored as registered.
    var storedToken: String? { storage.values[StorageKey.registeredPushToken] }
    /// The user the stored token is registered for.
    var storedTokenUser: String? { storage.values[StorageKey.registeredPushTokenUser] }
    /// The token stored as left registered for a user who signed out.
    var staleToken: String? { storage.values[StorageKey.stalePushToken] }

    /// Stores `token` as registered for `user`, as an earlier launch would have.
    func storeRegistration(_ token: String, for user: String) {
        storage.values[StorageKey.registeredPushToken] = token
        storage.values[StorageKey.registeredPushTokenUser] = user
    }

    /// Installs `POST /v1/me/permission/sync`, held at `gate` before the backend sees it.
    func allowSync(heldAt gate: Gate) {
        let sync = backend.syncPermission
        dependencies.api.syncPermission = { status in
            await gate.wait()
            return try await sync(status)
        }
    }

    /// Holds every `POST /v1/me/devices` at `gate` before the backend sees it.
    func holdRegistrations(at gate: Gate) {
        let register = dependencies.api.registerDevice
        dependencies.api.registerDevice = { registration in
            await gate.wait()
            return try await register(registration)
        }
    }

    /// Whether the soft ask's dismissal marker is stored.
    var isDismissalMarkerSet: Bool { storage.values[StorageKey.permissionPromptDismissed] != nil }

    /// A modal opened for the current OS state, recording its closes and lingering toasts.
    func prompt() -> (PermissionPromptModel, PromptCloses) {
        let closes = PromptCloses()
        let model = PermissionPromptModel(permission: system.current, dependencies: dependencies) { toast in
            closes.toasts.append(toast)
        }
        return (model, closes)
    }
}

/// Holds callers until a test opens it; once open, it lets every caller through.
@MainActor final class Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// How many callers wait.
    var waiting: Int { waiters.count }

    /// Waits until ``open()``.
    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Lets every waiting caller, and every later one, go on.
    func open() {
        isOpen = true
        let waiters = waiters
        self.waiters = []
        for waiter in waiters { waiter.resume() }
    }
}

/// What a prompt's `onClose` received, one entry per close.
@MainActor final class PromptCloses {
    var toasts: [Toast?] = []
    var count: Int { toasts.count }
}

/// OS permission states the tests run on each platform.
enum PermissionCases {
    /// Never asked: iOS not determined; Android 13 denied with can-ask-again.
    static let undecided: [(DevicePlatform, NotificationPermissionState)] = [
        (.ios, .notDetermined), (.android, .deniedCanAskAgain),
    ]
    /// Android granted (Android keeps can-ask-again).
    static let androidGranted = NotificationPermissionState(authorization: .authorized, canAskAgain: true)
    /// A first OS dialog that grants: platform, state before, state after.
    static let grants: [(DevicePlatform, NotificationPermissionState, NotificationPermissionState)] = [
        (.ios, .notDetermined, .authorized), (.android, .deniedCanAskAgain, androidGranted),
    ]
    /// A first OS dialog that refuses: iOS then blocks; Android could still ask again.
    static let refusals: [(DevicePlatform, NotificationPermissionState, NotificationPermissionState)] = [
        (.ios, .notDetermined, .blocked), (.android, .deniedCanAskAgain, .deniedCanAskAgain),
    ]
    /// The OS has decided: granted in any form, or blocked.
    static let decided: [(DevicePlatform, NotificationPermissionState)] = [
        (.ios, .authorized), (.ios, .blocked),
        (.ios, NotificationPermissionState(authorization: .ephemeral, canAskAgain: false)),
        (.android, androidGranted), (.android, .blocked),
    ]
    /// A signed-in, ready account on the Home tab, without a registered push token.
    static let onHome = HomeOfferConditions(
        isSignedIn: true, isAccountReady: true, isHomeFocused: true, isPushTokenRegistered: false)
}
