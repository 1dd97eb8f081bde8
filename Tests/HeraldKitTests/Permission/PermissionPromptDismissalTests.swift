import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Permission prompt: layout and closing")
@MainActor struct PermissionPromptDismissalTests {
    /// A way a person or the app removes the modal once the guard has passed.
    enum Removal: String, CaseIterable {
        case notNow, swipe, back, refetch
    }

    @Test(
        "PERM-08 idle: Stay in the loop with Turn on notifications and Not now; swipe blocked for the first 800 ms",
        arguments: [DevicePlatform.ios, .android])
    func idleLayout(platform: DevicePlatform) async {
        let world = PermissionWorld(platform == .ios ? .notDetermined : .deniedCanAskAgain, platform: platform)
        let (model, _) = world.prompt()
        model.appeared()

        #expect(model.layout == .ask)
        #expect(model.title == "Stay in the loop")
        #expect(model.message == PermissionPromptCopy.askMessage)
        #expect(model.primaryButton == ButtonState(title: "Turn on notifications"))
        #expect(model.secondaryButton == ButtonState(title: "Not now"))
        #expect(model.toast == nil)
        #expect(model.isPresented)
        #expect(!model.canDismiss)
        await world.clock.advance(by: .milliseconds(800))
        #expect(model.canDismiss)
    }

    @Test("PERM-07 removal guard blocks dismissal for 800 ms after the modal appears")
    func removalGuard() async {
        let world = PermissionWorld(.notDetermined)
        let (model, closes) = world.prompt()
        #expect(!model.removalRequested())
        model.appeared()

        await world.clock.advance(by: .milliseconds(799))
        #expect(!model.canDismiss)
        #expect(!model.removalRequested())
        #expect(model.isPresented)
        #expect(!world.isDismissalMarkerSet)
        #expect(world.navigator.steps.isEmpty)

        await world.clock.advance(by: .milliseconds(1))
        #expect(model.canDismiss)
        #expect(model.removalRequested())
        #expect(!model.isPresented)
        #expect(closes.count == 1)
    }

    @Test("PERM-07 the guard counts from the first appearance; appearing again does not restart it")
    func guardStartsOnce() async {
        let world = PermissionWorld(.notDetermined)
        let (model, _) = world.prompt()
        model.appeared()
        await world.clock.advance(by: .milliseconds(500))
        model.appeared()
        await world.clock.advance(by: .milliseconds(300))
        #expect(model.canDismiss)
    }

    @Test(
        "PERM-06 Not now, swipe, back or a removal by the app writes the dismissal marker and closes",
        arguments: Removal.allCases)
    func dismissalIsRemembered(removal: Removal) async {
        let world = PermissionWorld(.notDetermined)
        let (model, closes) = world.prompt()
        model.appeared()
        await world.clock.advance(by: .milliseconds(800))

        switch removal {
        case .notNow: model.notNowTapped()
        case .swipe, .back, .refetch: #expect(model.removalRequested())
        }

        #expect(!model.isPresented)
        #expect(closes.toasts == [nil])
        #expect(world.isDismissalMarkerSet)
    }

    @Test("PERM-06 Not now closes even inside the removal guard: the guard stops removals, not the person")
    func notNowIsNotGuarded() {
        let world = PermissionWorld(.notDetermined)
        let (model, _) = world.prompt()
        model.appeared()
        model.notNowTapped()
        #expect(!model.isPresented)
        #expect(world.isDismissalMarkerSet)
    }

    @Test("PERM-13 every close goes Home and sets the dismissal marker, once", arguments: Removal.allCases)
    func everyCloseGoesHome(removal: Removal) async {
        let world = PermissionWorld(.notDetermined)
        let (model, closes) = world.prompt()
        model.appeared()
        await world.clock.advance(by: .seconds(1))

        switch removal {
        case .notNow: model.notNowTapped()
        case .swipe, .back, .refetch: model.removalRequested()
        }
        model.notNowTapped()
        model.removalRequested()

        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.isDismissalMarkerSet)
        #expect(closes.count == 1)
    }

    @Test("PERM-13 a removal while the denial toast shows closes at once, and the 3 s timer does not close again")
    func removalDuringDenialToast() async {
        let world = PermissionWorld(.deniedCanAskAgain, platform: .android)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(.deniedCanAskAgain)
        let (model, closes) = world.prompt()
        model.appeared()
        await world.clock.advance(by: .seconds(1))
        await model.turnOnTapped()

        #expect(model.removalRequested())
        await world.clock.advance(by: .seconds(5))
        #expect(closes.count == 1)
        #expect(world.navigator.openedPaths == ["/"])
    }

    @Test(
        "PERM-15 blocked by the OS at open: Notifications are turned off, with Open Settings instead of Turn on notifications",
        arguments: [DevicePlatform.ios, .android])
    func blockedAtOpen(platform: DevicePlatform) async {
        let world = PermissionWorld(.blocked, platform: platform)
        let (model, _) = world.prompt()

        #expect(model.layout == .blocked)
        #expect(model.title == "Notifications are turned off")
        #expect(model.message == PermissionPromptCopy.blockedMessage)
        #expect(model.primaryButton == ButtonState(title: "Open Settings"))
        #expect(model.secondaryButton == ButtonState(title: "Not now"))

        await model.turnOnTapped()
        #expect(world.system.requests == 0)
        #expect(model.isPresented)
    }
}
