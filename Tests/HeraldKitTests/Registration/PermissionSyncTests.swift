import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Start-up permission sync")
@MainActor struct PermissionSyncTests {
    struct Failed: Error {}

    /// A signed-in start on a simulator (no token step) whose OS reports `state`, with the
    /// backend holding `stored` preferences.
    private func start(
        _ state: NotificationPermissionState, platform: DevicePlatform = .ios, stored: Preferences
    ) async -> PermissionWorld {
        let world = PermissionWorld(state, platform: platform)
        world.dependencies.platform.isSimulator = true
        world.backend.preferences = stored
        world.allowSync()
        await PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies).shellMounted(userID: "alice")
        return world
    }

    @Test(
        "SYNC-01 revoked in system settings: on start the stored global switch becomes false",
        arguments: [
            (DevicePlatform.ios, NotificationPermissionState.blocked), (.android, .blocked),
            (.android, .deniedCanAskAgain),
        ])
    func revokedTurnsTheSwitchOff(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = await start(
            state, platform: platform, stored: Preferences(globalEnabled: true, osPermissionGranted: true))

        #expect(world.backend.syncs == [.denied])
        #expect(world.backend.preferences.globalEnabled == false)
        #expect(world.backend.preferences.osPermissionGranted == false)
    }

    @Test(
        "SYNC-02 granted in system settings: on start the stored global switch becomes true",
        arguments: [
            (DevicePlatform.ios, NotificationAuthorization.authorized), (.ios, .provisional), (.ios, .ephemeral),
            (.android, .authorized),
        ])
    func grantedTurnsTheSwitchOn(platform: DevicePlatform, authorization: NotificationAuthorization) async {
        let state = NotificationPermissionState(authorization: authorization, canAskAgain: platform == .android)
        let world = await start(
            state, platform: platform, stored: Preferences(globalEnabled: false, osPermissionGranted: false))

        #expect(world.backend.syncs == [.granted])
        #expect(world.backend.preferences.globalEnabled == true)
        #expect(world.backend.preferences.osPermissionGranted == true)
    }

    @Test("SYNC-02 iOS statuses map to the sync status: authorized, provisional and ephemeral are granted")
    func statusMapping() {
        let table: [(NotificationAuthorization, PermissionStatus)] = [
            (.notDetermined, .undetermined),
            (.denied, .denied),
            (.authorized, .granted),
            (.provisional, .granted),
            (.ephemeral, .granted),
        ]
        #expect(table.map(\.0) == NotificationAuthorization.allCases, "the table lists every iOS status once")
        for (authorization, expected) in table {
            #expect(PermissionStatus(authorization) == expected, "\(authorization)")
        }
    }

    @Test("SYNC-03 never asked: no sync on start, and the global switch keeps its default")
    func neverAskedDoesNotSync() async {
        let world = PermissionWorld(.notDetermined)
        world.dependencies.platform.isSimulator = true
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.syncs.isEmpty)
        #expect(world.backend.preferences == Preferences())
    }

    @Test("SYNC-01 a failed sync does not stop registration")
    func failedSyncStillRegisters() async {
        let world = PermissionWorld(.authorized)
        world.allowSync()
        world.backend.syncError = HeraldAPIError.offline()
        world.allowRegistering(PushToken(value: "apns-token-1", provider: .apns))
        let registrar = PushRegistrar(presentation: .softAskModal, dependencies: world.dependencies)

        await registrar.shellMounted(userID: "alice")

        #expect(world.backend.syncs == [.granted])
        #expect(registrar.status == .registered)
    }
}
