import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Push registration")
@MainActor struct PushRegistrarTests {
    struct Failed: Error {}

    nonisolated static let apnsToken = PushToken(value: "apns-token-1", provider: .apns, environment: .development)
    nonisolated static let fcmToken = PushToken(value: "fcm-token-1", provider: .fcm)
    /// A granted device on each platform with the token its OS hands out.
    nonisolated static let grantedDevices: [(DevicePlatform, NotificationPermissionState, PushToken)] = [
        (.ios, .authorized, apnsToken), (.android, PermissionCases.androidGranted, fcmToken),
    ]

    /// A world on `platform` whose OS reports `state`, with the device facts registration sends.
    private func world(
        _ state: NotificationPermissionState, platform: DevicePlatform = .ios, simulator: Bool = false
    ) -> PermissionWorld {
        let world = PermissionWorld(state, platform: platform)
        world.dependencies.platform = PlatformFacts(
            platform: platform, isSimulator: simulator, appVersion: "2.4.1", installSource: .appStore,
            locale: "nl-NL", timeZone: "Europe/Amsterdam")
        return world
    }

    @Test(
        "PUSH-01 mounting the signed-in shell starts registration by checking the permission",
        arguments: PermissionCases.undecided)
    func mountChecksPermission(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = world(state, platform: platform)
        if platform == .android { world.allowSync() }
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        #expect(world.system.stateReads == 0)

        await registrar.shellMounted(userID: "alice")

        #expect(world.system.stateReads == 1)
        #expect(world.system.requests == 0)
        #expect(registrar.status == .notGranted)
        #expect(!registrar.isTokenRegistered)
    }

    @Test("PUSH-01 a failed permission check stops registration")
    func failedCheckStops() async {
        let world = world(.authorized)
        world.system.stateError = Failed()
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(registrar.status == .failed)
        #expect(world.tokens.requests == 0)
    }

    @Test(
        "PUSH-02 configured to ask at sign-in, the app asks when not yet granted, records the answer and registers",
        arguments: PermissionCases.grants)
    func asksAtSignIn(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let world = world(before, platform: platform)
        world.system.nextAnswer = .state(after)
        world.allowRecordingDecisions()
        if platform == .android { world.allowSync() }
        world.allowRegistering(platform == .ios ? Self.apnsToken : Self.fcmToken)
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.system.requests == 1)
        #expect(world.backend.decisions == [true])
        #expect(world.backend.registrations.count == 1)
        #expect(registrar.status == .registered)
    }

    @Test(
        "PUSH-02 asking at sign-in, a refusal registers nothing",
        arguments: PermissionCases.refusals)
    func refusalAtSignIn(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let world = world(before, platform: platform)
        world.system.nextAnswer = .state(after)
        world.allowRecordingDecisions()
        if platform == .android { world.allowSync() }
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.decisions == [false])
        #expect(registrar.status == .notGranted)
    }

    @Test("EVENT-06 a grant in the OS dialog at sign-in logs notification_permission_granted")
    func grantAtSignInLogsTheEvent() async {
        let world = world(.notDetermined)
        world.system.nextAnswer = .state(.authorized)
        world.allowRecordingDecisions()
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.analytics.names == ["notification_permission_granted"])
    }

    @Test(
        "EVENT-07 a refusal in the OS dialog at sign-in logs notification_permission_denied; no choice logs nothing",
        arguments: [
            (
                DevicePlatform.ios, NotificationPermissionState.notDetermined, NotificationPermissionState.blocked,
                ["notification_permission_denied"]
            ),
            (.android, .deniedCanAskAgain, .deniedCanAskAgain, ["notification_permission_denied"]),
            (.ios, .notDetermined, .notDetermined, []),
        ])
    func refusalAtSignInLogsTheEvent(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState,
        events: [String]
    ) async {
        let world = world(before, platform: platform)
        world.system.nextAnswer = .state(after)
        world.allowRecordingDecisions()
        if platform == .android { world.allowSync() }
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.analytics.names == events)
        #expect(world.backend.decisions == (events.isEmpty ? [] : [false]))
    }

    @Test("PUSH-02 asking at sign-in, an OS request that throws registers nothing")
    func requestErrorAtSignIn() async {
        let world = world(.notDetermined)
        world.system.nextAnswer = .failure(Failed())
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(registrar.status == .failed)
    }

    @Test(
        "PUSH-02 every other presentation never asks at start-up",
        arguments: [
            PermissionPresentation.softAskModal, .homeBanner,
        ])
    func otherPresentationsNeverAsk(presentation: PermissionPresentation) async {
        let world = world(.notDetermined)
        let registrar = PushRegistrar(presentation: presentation, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.system.requests == 0)
        #expect(registrar.status == .notGranted)
    }

    @Test(
        "PUSH-02 asking at sign-in does not ask when the OS will no longer show its dialog",
        arguments: [
            (DevicePlatform.ios, NotificationPermissionState.blocked), (.android, .blocked),
        ])
    func noAskWhenBlocked(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = world(state, platform: platform)
        world.allowSync()
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.system.requests == 0)
        #expect(registrar.status == .notGranted)
    }

    @Test(
        "PUSH-03 once granted, a push token is requested",
        arguments: grantedDevices + [
            (.ios, NotificationPermissionState(authorization: .provisional, canAskAgain: false), apnsToken)
        ])
    func grantedRequestsAToken(platform: DevicePlatform, state: NotificationPermissionState, token: PushToken) async {
        let world = world(state, platform: platform)
        world.allowSync()
        world.allowRegistering(token)
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.tokens.requests == 1)
        #expect(world.system.requests == 0)
        #expect(registrar.status == .registered)
    }

    @Test("PUSH-03 a grant made after start-up (soft ask, banner or Settings) registers when the app becomes active")
    func laterGrantRegistersOnActivation() async {
        let world = world(.notDetermined)
        world.allowRegistering(Self.apnsToken)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")
        #expect(registrar.status == .notGranted)

        world.system.current = .authorized
        await registrar.appBecameActive()
        #expect(registrar.status == .registered)
        #expect(world.backend.registrations.map(\.token) == ["apns-token-1"])

        await registrar.appBecameActive()
        #expect(world.system.stateReads == 2)
        #expect(world.tokens.requests == 1)
    }

    @Test("PUSH-03 while two mounts overlap, the app becoming active waits until both are done")
    func activationWaitsForOverlappingMounts() async {
        let world = world(.blocked)
        let gate = Gate()
        world.allowSync(heldAt: gate)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        let first = Task { await registrar.shellMounted(userID: "alice") }
        await world.clock.settle()
        #expect(gate.waiting == 1)
        world.system.holdsStateReads = true
        let second = Task { await registrar.shellMounted(userID: "alice") }
        await world.clock.settle()
        #expect(world.system.heldStateReadCount == 1)

        gate.open()
        await first.value
        let active = Task { await registrar.appBecameActive() }
        await world.clock.settle()
        #expect(world.system.stateReads == 2)

        world.system.releaseStateReads()
        await second.value
        await active.value
        #expect(world.system.stateReads == 2)
        #expect(registrar.status == .notGranted)
    }

    @Test("PUSH-03 a failed token request registers nothing; the next mount tries again")
    func tokenFailureRetries() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.tokens.error = Failed()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")
        #expect(registrar.status == .failed)
        #expect(world.backend.registrations.isEmpty)

        world.tokens.error = nil
        await registrar.shellMounted(userID: "alice")
        #expect(registrar.status == .registered)
    }

    @Test(
        "PUSH-04 the token is registered with the backend with its provider, platform, environment, app version, locale and time zone",
        arguments: grantedDevices)
    func registersTheToken(platform: DevicePlatform, state: NotificationPermissionState, token: PushToken) async {
        let world = world(state, platform: platform)
        world.allowSync()
        world.allowRegistering(token)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(
            world.backend.registrations == [
                DeviceRegistration(
                    token: token.value, provider: token.provider, platform: platform, environment: token.environment,
                    appVersion: "2.4.1", locale: "nl-NL", timeZone: "Europe/Amsterdam")
            ])
        #expect(world.storedToken == token.value)
        #expect(registrar.registeredToken == token.value)
        #expect(registrar.isTokenRegistered)
    }

    @Test("PUSH-04 an app of a server with several apps registers its token under its app id")
    func registersTheAppID() async {
        let world = world(.authorized)
        world.dependencies.platform.appId = "shop"
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.registrations.map(\.appId) == ["shop"])
    }

    @Test("PUSH-04 a failed registration stores nothing, and the next mount registers")
    func registrationFailureRetries() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.backend.registerError = HeraldAPIError.offline()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")
        #expect(registrar.status == .failed)
        #expect(world.storedToken == nil)

        world.backend.registerError = nil
        await registrar.shellMounted(userID: "alice")
        #expect(world.backend.registrations.count == 2)
        #expect(world.storedToken == "apns-token-1")
    }

    @Test("PUSH-04 another account mounting after a session that ended without sign-out registers the token for itself")
    func anotherAccountRegistersAfresh() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")
        #expect(registrar.isTokenRegistered)

        // Alice's session expired; no signingOut(). Bob signs in.
        await registrar.shellMounted(userID: "bob")
        #expect(world.backend.registrations.map(\.token) == ["apns-token-1", "apns-token-1"])
        #expect(world.storedTokenUser == "bob")
        #expect(registrar.isTokenRegistered)

        // On a later launch Bob's token is on record for him; Alice's is not.
        let nextLaunch = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await nextLaunch.shellMounted(userID: "bob")
        #expect(world.backend.registrations.count == 2)
        await nextLaunch.shellMounted(userID: "alice")
        #expect(world.backend.registrations.count == 3)
        #expect(world.storedTokenUser == "alice")
    }

    @Test("PUSH-04 a token on record for another user does not count as registered for the one signing in")
    func tokenOfAnotherUserIsNotRegistered() async {
        let world = world(.authorized)
        world.storeRegistration("apns-token-1", for: "alice")
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.system.holdsStateReads = true
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        let mount = Task { await registrar.shellMounted(userID: "bob") }
        await world.clock.settle()
        #expect(!registrar.isTokenRegistered)
        #expect(registrar.registeredToken == nil)

        world.system.releaseStateReads()
        await mount.value
        #expect(registrar.registeredToken == "apns-token-1")
        #expect(world.backend.registrations.count == 1)
    }

    @Test("PUSH-04 a registration still landing for the previous user is not kept for them; the new user's lands last")
    func lateRegistrationOfThePreviousUser() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        let gate = Gate()
        world.holdRegistrations(at: gate)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        let alice = Task { await registrar.shellMounted(userID: "alice") }
        await world.clock.settle()
        #expect(gate.waiting == 1)

        let bob = Task { await registrar.shellMounted(userID: "bob") }
        await world.clock.settle()
        #expect(gate.waiting == 1)
        gate.open()
        await alice.value
        await bob.value

        #expect(world.backend.registrations.count == 2)
        #expect(world.storedTokenUser == "bob")
        #expect(world.staleToken == nil)
        #expect(registrar.isTokenRegistered)
        #expect(registrar.status == .registered)
    }

    @Test("PUSH-05 on cold start the token is read again and not re-registered when it did not rotate")
    func coldStartSameToken() async {
        let world = world(.authorized)
        world.storeRegistration("apns-token-1", for: "alice")
        world.allowSync()
        world.tokens.token = Self.apnsToken
        world.dependencies.pushToken = world.tokens.client
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        #expect(!registrar.isTokenRegistered)

        await registrar.shellMounted(userID: "alice")

        #expect(world.tokens.requests == 1)
        #expect(registrar.status == .registered)
        #expect(registrar.isTokenRegistered)
        #expect(world.storedToken == "apns-token-1")
    }

    @Test(
        "PUSH-05 on cold start a rotated token is registered and remembered",
        arguments: grantedDevices)
    func coldStartRotatedToken(platform: DevicePlatform, state: NotificationPermissionState, token: PushToken) async {
        let world = world(state, platform: platform)
        world.storeRegistration("old-token", for: "alice")
        world.allowSync()
        world.allowRegistering(token)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.registrations.map(\.token) == [token.value])
        #expect(world.storedToken == token.value)
        #expect(registrar.registeredToken == token.value)
    }

    @Test(
        "PUSH-06 simulator builds skip the token request and registration still completes without errors",
        arguments: [
            DevicePlatform.ios, .android,
        ])
    func simulatorSkipsTheToken(platform: DevicePlatform) async {
        let state = platform == .ios ? NotificationPermissionState.authorized : PermissionCases.androidGranted
        let world = world(state, platform: platform, simulator: true)
        world.allowSync()
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")
        await registrar.appBecameActive()

        #expect(registrar.status == .skippedOnSimulator)
        #expect(!registrar.isTokenRegistered)
    }

    @Test("PUSH-06 on a simulator, asking at sign-in still shows the OS dialog")
    func simulatorStillAsks() async {
        let world = world(.notDetermined, simulator: true)
        world.system.nextAnswer = .state(.authorized)
        world.allowRecordingDecisions()
        let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.system.requests == 1)
        #expect(registrar.status == .skippedOnSimulator)
    }

    @Test(
        "PUSH-13 sign-out unregisters the device's token from the backend and forgets it",
        arguments: grantedDevices)
    func signOutUnregisters(platform: DevicePlatform, state: NotificationPermissionState, token: PushToken) async {
        let world = world(state, platform: platform)
        world.allowSync()
        world.allowRegistering(token)
        world.allowUnregistering()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")

        await registrar.signingOut()

        #expect(world.backend.unregistered == [token.value])
        #expect(world.storedToken == nil)
        #expect(!registrar.isTokenRegistered)
        #expect(registrar.status == .idle)
    }

    @Test("PUSH-13 a failed unregister is kept; another account registering the token makes it moot")
    func failedUnregisterIsMootOnceAnotherAccountRegisters() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.allowUnregistering()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")
        world.backend.unregisterError = HeraldAPIError.offline()

        await registrar.signingOut()
        #expect(world.backend.unregistered == ["apns-token-1"])
        #expect(world.storedToken == nil)
        #expect(world.staleToken == "apns-token-1")

        world.backend.unregisterError = nil
        let nextLaunch = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await nextLaunch.shellMounted(userID: "bob")
        await nextLaunch.appBecameActive()
        #expect(world.backend.registrations.map(\.token) == ["apns-token-1", "apns-token-1"])
        #expect(world.backend.unregistered == ["apns-token-1"])
        #expect(world.staleToken == nil)
        #expect(world.storedTokenUser == "bob")
    }

    @Test(
        "PUSH-13 a failed unregister is retried while the same user is signed in again and the token is not theirs again"
    )
    func failedUnregisterRetriedForTheSameUser() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.allowUnregistering()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")
        world.backend.unregisterError = HeraldAPIError.offline()
        await registrar.signingOut()

        // Another account without permission cannot unregister alice's token: nothing is tried.
        world.system.current = .blocked
        await registrar.shellMounted(userID: "bob")
        await registrar.appBecameActive()
        await registrar.signingOut()
        #expect(world.backend.unregistered == ["apns-token-1"])

        // Alice is back, still offline, then online when the app becomes active.
        await registrar.shellMounted(userID: "alice")
        #expect(world.backend.unregistered == ["apns-token-1", "apns-token-1"])
        #expect(world.staleToken == "apns-token-1")
        world.backend.unregisterError = nil
        await registrar.appBecameActive()
        #expect(world.backend.unregistered == ["apns-token-1", "apns-token-1", "apns-token-1"])
        #expect(world.staleToken == nil)
        await registrar.appBecameActive()
        #expect(world.backend.unregistered.count == 3)
        #expect(world.backend.registrations.count == 1)
    }

    @Test("PUSH-13 when the same user is back with permission, the token is registered again instead of unregistered")
    func failedUnregisterReplacedByRegistration() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.allowUnregistering()
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        await registrar.shellMounted(userID: "alice")
        world.backend.unregisterError = HeraldAPIError.offline()
        await registrar.signingOut()
        world.backend.unregisterError = nil

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.registrations.count == 2)
        #expect(world.backend.unregistered == ["apns-token-1"])
        #expect(world.staleToken == nil)
        #expect(registrar.isTokenRegistered)
    }

    @Test("PUSH-13 signing out while the token is being registered unregisters it once it lands and stores nothing")
    func signOutDuringRegistration() async {
        let world = world(.authorized)
        world.allowSync()
        world.allowRegistering(Self.apnsToken)
        world.allowUnregistering()
        let gate = Gate()
        world.holdRegistrations(at: gate)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)
        let mount = Task { await registrar.shellMounted(userID: "alice") }
        await world.clock.settle()
        #expect(gate.waiting == 1)

        let signOut = Task { await registrar.signingOut() }
        await world.clock.settle()
        #expect(!registrar.isTokenRegistered)
        #expect(world.backend.unregistered.isEmpty)

        gate.open()
        await mount.value
        await signOut.value
        #expect(world.backend.registrations.count == 1)
        #expect(world.backend.unregistered == ["apns-token-1"])
        #expect(world.storedToken == nil)
        #expect(world.staleToken == nil)
        #expect(registrar.status == .idle)
        #expect(!registrar.isTokenRegistered)
    }

    @Test("PUSH-13 signing out with no registered token calls nothing")
    func signOutWithoutToken() async {
        let world = world(.notDetermined)
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.signingOut()

        #expect(world.storedToken == nil)
    }
}
