import HeraldKit
import HeraldKitTestSupport
import Testing

@Suite("Launch: native splash, session wait, splash cover, replayed link")
@MainActor struct LaunchCoordinatorTests {
    @Test("SPLASH-01 the native splash is held while the session is pending")
    func nativeSplashHeld() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        #expect(launch.splash == .native)
        #expect(launch.session == .pending)
        #expect(launch.firstRoute == "/")
        await world.clock.advance(by: .milliseconds(9_999))
        #expect(launch.splash == .native)
        #expect(launch.session == .pending)
    }

    @Test("SPLASH-02 a session pending for 10 s: the app goes on as a guest (9.999 s still waits)")
    func sessionWaitEndsAsGuest() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        await world.clock.advance(by: .milliseconds(9_999))
        #expect(launch.session == .pending)
        await world.clock.advance(by: .milliseconds(1))
        #expect(launch.session == .guest)
        #expect(launch.proceededAsGuestAfterWait)
        #expect(launch.splash == .cover)

        // A session that shows up late still applies, as a sign-in would.
        launch.sessionRestored(userID: "alice")
        #expect(launch.session == .signedIn(userID: "alice"))
    }

    @Test("SPLASH-02 a session restored in time cancels the wait")
    func sessionInTime() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        await world.clock.advance(by: .milliseconds(9_999))
        launch.sessionRestored(userID: "alice")
        await world.clock.advance(by: .seconds(1))
        #expect(launch.session == .signedIn(userID: "alice"))
        #expect(!launch.proceededAsGuestAfterWait)
    }

    @Test("SPLASH-03 the cover stays over the first screen until Home reports content")
    func coverUntilHomeContent() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        launch.sessionRestored(userID: "alice")
        #expect(launch.splash == .cover)
        await world.clock.advance(by: .seconds(5))
        #expect(launch.splash == .cover)
        launch.homeContentReady()
        #expect(launch.splash == .none)
        await world.clock.advance(by: .seconds(20))
        #expect(launch.splash == .none)
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("SPLASH-03 the cover goes after the 12 s backstop when Home never reports content (11.999 s still covers)")
    func coverBackstop() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        await world.clock.advance(by: .seconds(3))
        launch.sessionRestored(userID: nil)
        #expect(launch.session == .guest)
        await world.clock.advance(by: .milliseconds(11_999))
        #expect(launch.splash == .cover)
        await world.clock.advance(by: .milliseconds(1))
        #expect(launch.splash == .none)
    }

    @Test("SPLASH-03 Home content ready before the session leaves no cover")
    func contentBeforeSession() async {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched()
        launch.homeContentReady()
        #expect(launch.splash == .native)
        launch.sessionRestored(userID: nil)
        #expect(launch.splash == .none)
    }

    @Test("SPLASH-04 a link that arrived before Home is replayed once Home is built, once")
    func linkReplayedAfterHome() async throws {
        let world = ShellWorld()
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        launch.launched(link: "/orders/42")
        #expect(launch.firstRoute == "/")
        launch.sessionRestored(userID: "alice")
        await world.clock.advance(by: .seconds(30))
        #expect(world.navigator.steps.isEmpty)
        #expect(launch.links.parkedLink == "/orders/42")

        launch.homeBuilt()
        #expect(world.navigator.openedPaths == ["/orders/42"])
        launch.homeBuilt()
        #expect(world.navigator.openedPaths == ["/orders/42"])
        #expect(launch.links.parkedLink == nil)
    }

    @Test("SPLASH-04 the link is screened when it is replayed, with the allowlist app-config brought meanwhile")
    func replayUsesLoadedAllowlist() async throws {
        let world = ShellWorld(platform: .android)
        let launch = LaunchCoordinator(dependencies: world.dependencies)
        launch.launched(link: "/loyalty/rewards")
        launch.links.appConfigLoaded(try world.appConfig(allowing: ["/loyalty"]))
        launch.sessionRestored(userID: nil)
        launch.homeBuilt()
        #expect(world.navigator.openedPaths == ["/loyalty/rewards"])
    }
}
