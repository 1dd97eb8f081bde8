import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Permission prompt: asking the OS")
@MainActor struct PermissionPromptRequestTests {
    struct OSDialogFailed: Error {}

    @Test("PERM-02 requesting: the primary button shows loading and is disabled", arguments: PermissionCases.undecided)
    func requestingShowsLoading(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .pending
        let (model, _) = world.prompt()
        #expect(model.primaryButton == ButtonState(title: "Turn on notifications"))

        let tap = Task { await model.turnOnTapped() }
        await world.clock.settle()
        #expect(world.system.isDialogOpen)
        #expect(model.isRequesting)
        #expect(model.primaryButton == ButtonState(title: "Turn on notifications", isLoading: true, isDisabled: true))
        #expect(model.secondaryButton.isDisabled)

        world.system.respond(.state(.authorized))
        await tap.value
    }

    @Test("PERM-09 the button stays loading for as long as the OS dialog is open, and removal is refused meanwhile")
    func staysLoadingWhileTheDialogIsOpen() async {
        let world = PermissionWorld(.notDetermined)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .pending
        let (model, closes) = world.prompt()
        model.appeared()
        let tap = Task { await model.turnOnTapped() }

        await world.clock.advance(by: .seconds(30))
        #expect(world.system.isDialogOpen)
        #expect(model.primaryButton.isLoading)
        #expect(!model.canDismiss)
        #expect(!model.removalRequested())
        model.notNowTapped()
        #expect(model.isPresented)

        world.system.respond(.state(.authorized))
        await tap.value
        #expect(!model.primaryButton.isLoading)
        #expect(closes.count == 1)
    }

    @Test(
        "PERM-03 granted: the modal closes and the grant is recorded",
        arguments: PermissionCases.grants + [
            (.ios, .notDetermined, NotificationPermissionState(authorization: .provisional, canAskAgain: false))
        ])
    func grantedCloses(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let world = PermissionWorld(before, platform: platform)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(after)
        let (model, closes) = world.prompt()

        await model.turnOnTapped()

        #expect(!model.isPresented)
        #expect(closes.toasts == [nil])
        #expect(model.toast == nil)
        #expect(world.backend.decisions == [true])
        #expect(world.backend.preferences.osPermissionGranted == true)
        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.isDismissalMarkerSet)
    }

    @Test("PERM-04 ordinary denial (Android can ask again): warning toast, then the modal closes after 3 s")
    func ordinaryDenialToastsThenCloses() async {
        let world = PermissionWorld(.deniedCanAskAgain, platform: .android)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(.deniedCanAskAgain)
        let (model, closes) = world.prompt()

        await model.turnOnTapped()

        #expect(model.toast == PermissionPromptCopy.deniedToast)
        #expect(model.toast?.kind == .warning)
        #expect(model.toast?.title == "Notifications Disabled")
        #expect(world.backend.decisions == [false])
        #expect(model.primaryButton == ButtonState(title: "Turn on notifications", isDisabled: true))
        await world.clock.advance(by: .milliseconds(2999))
        #expect(model.isPresented)
        #expect(closes.count == 0)
        await world.clock.advance(by: .milliseconds(1))
        #expect(!model.isPresented)
        #expect(closes.toasts == [nil])
        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.isDismissalMarkerSet)
    }

    @Test(
        "PERM-10 denied: a warning toast then close when the OS can ask later; a final denial shows Open Settings instead"
    )
    func denialToastOrOpenSettings() async {
        let ordinary = PermissionWorld(.deniedCanAskAgain, platform: .android)
        ordinary.allowRecordingDecisions()
        ordinary.system.nextAnswer = .state(.deniedCanAskAgain)
        let (first, _) = ordinary.prompt()
        await first.turnOnTapped()
        #expect(first.toast?.title == "Notifications Disabled")
        #expect(first.layout == .ask)
        await ordinary.clock.advance(by: .seconds(3))
        #expect(!first.isPresented)

        let final = PermissionWorld(.deniedCanAskAgain, platform: .android)
        final.allowRecordingDecisions()
        final.system.nextAnswer = .state(.blocked)
        let (second, closes) = final.prompt()
        await second.turnOnTapped()
        #expect(second.toast == nil)
        #expect(second.primaryButton == ButtonState(title: "Open Settings"))
        await final.clock.advance(by: .seconds(10))
        #expect(second.isPresented)
        #expect(closes.count == 0)
    }

    @Test(
        "PERM-16 a refusal that leaves the OS blocking keeps the modal open in the blocked layout, without a toast",
        arguments: PermissionCases.undecided)
    func finalDenialFlipsToBlocked(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(.blocked)
        let (model, closes) = world.prompt()

        await model.turnOnTapped()

        #expect(model.isPresented)
        #expect(closes.count == 0)
        #expect(model.toast == nil)
        #expect(model.layout == .blocked)
        #expect(model.title == "Notifications are turned off")
        #expect(model.primaryButton == ButtonState(title: "Open Settings"))
        #expect(world.backend.decisions == [false])
        #expect(!world.isDismissalMarkerSet)
        #expect(world.navigator.steps.isEmpty)
    }

    @Test(
        "PERM-05 the request throws: a danger toast titled Error, and the modal closes at once",
        arguments: PermissionCases.undecided)
    func requestErrorClosesWithDangerToast(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        world.system.nextAnswer = .failure(OSDialogFailed())
        let (model, closes) = world.prompt()

        await model.turnOnTapped()

        #expect(model.toast == PermissionPromptCopy.errorToast)
        #expect(model.toast?.kind == .danger)
        #expect(model.toast?.title == "Error")
        #expect(!model.isPresented)
        #expect(closes.toasts == [PermissionPromptCopy.errorToast])
        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.isDismissalMarkerSet)
    }

    @Test(
        "PERM-17 Open Settings opens the system settings, then the modal closes and the dismissal marker is written",
        arguments: [DevicePlatform.ios, .android])
    func openSettingsThenClose(platform: DevicePlatform) async {
        let world = PermissionWorld(.blocked, platform: platform)
        world.allowOpeningSettings()
        let (model, closes) = world.prompt()

        await model.openSettingsTapped()

        #expect(world.settings.opens == 1)
        #expect(!model.isPresented)
        #expect(closes.toasts == [nil])
        #expect(world.isDismissalMarkerSet)
        #expect(world.navigator.openedPaths == ["/"])
    }

    @Test("PERM-17 after a final denial, Open Settings opens the settings and closes")
    func openSettingsAfterFinalDenial() async {
        let world = PermissionWorld(.notDetermined)
        world.allowRecordingDecisions()
        world.allowOpeningSettings()
        world.system.nextAnswer = .state(.blocked)
        let (model, _) = world.prompt()

        await model.turnOnTapped()
        await model.openSettingsTapped()

        #expect(world.settings.opens == 1)
        #expect(!model.isPresented)
        #expect(world.isDismissalMarkerSet)
    }

    @Test(
        "EVENT-06 a grant in the modal's OS dialog logs notification_permission_granted",
        arguments: PermissionCases.grants)
    func grantLogsTheEvent(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let world = PermissionWorld(before, platform: platform)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(after)
        let (model, _) = world.prompt()

        await model.turnOnTapped()

        #expect(world.analytics.names == ["notification_permission_granted"])
    }

    @Test(
        "EVENT-07 a refusal in the modal's OS dialog logs notification_permission_denied",
        arguments: PermissionCases.refusals)
    func refusalLogsTheEvent(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let world = PermissionWorld(before, platform: platform)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(after)
        let (model, _) = world.prompt()

        await model.turnOnTapped()

        #expect(world.analytics.names == ["notification_permission_denied"])
    }

    @Test("EVENT-07 an OS dialog closed without a choice logs no decision and records none")
    func noChoiceLogsNothing() async {
        let world = PermissionWorld(.notDetermined)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(.notDetermined)
        let (model, _) = world.prompt()

        await model.turnOnTapped()

        #expect(world.analytics.names.isEmpty)
        #expect(world.backend.decisions.isEmpty)
    }
}
