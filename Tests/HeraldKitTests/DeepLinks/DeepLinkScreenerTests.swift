import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Deep link screening")
@MainActor struct DeepLinkScreenerTests {
    @Test("LINK-01 a rejected link on a cold start opens Home and nothing else, silently")
    func rejectedColdLinkOpensHome() throws {
        let world = ShellWorld()
        let links = DeepLinkScreener(dependencies: world.dependencies)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        #expect(links.coldStart(link: "/admin/secret") == "/")
        links.homeBuilt()
        #expect(world.navigator.steps.isEmpty)
    }

    @Test("LINK-01 a rejected warm link is ignored; an allowed one opens", arguments: [DevicePlatform.ios, .android])
    func warmLinks(platform: DevicePlatform) throws {
        let world = ShellWorld(platform: platform)
        let links = DeepLinkScreener(dependencies: world.dependencies)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/", "https://shop.example.com/"]))
        _ = links.coldStart(link: nil)
        links.homeBuilt()

        for rejected in ["/loyalty", "https://evil.example.com/orders/1", "/orders/../admin", "/orders/1 2", ""] {
            links.linkOpened(rejected)
        }
        #expect(world.navigator.steps.isEmpty)
        links.linkOpened("/orders/42")
        links.linkOpened("https://shop.example.com/sale")
        #expect(world.navigator.openedPaths == ["/orders/42", "https://shop.example.com/sale"])
    }

    @Test("LINK-01 before app-config loads no link passes")
    func nothingPassesWithoutAppConfig() {
        let world = ShellWorld()
        let links = DeepLinkScreener(dependencies: world.dependencies)
        _ = links.coldStart(link: "/orders/42")
        links.homeBuilt()
        links.linkOpened("/orders/43")
        #expect(world.navigator.steps.isEmpty)
    }

    @Test("SPLASH-04 a link that arrived before Home waits for app-config when Home is built first, and opens once")
    func coldLinkWaitsForAppConfig() async throws {
        let world = ShellWorld()
        let links = DeepLinkScreener(dependencies: world.dependencies)
        _ = links.coldStart(link: "/orders/42")
        links.homeBuilt()
        #expect(world.navigator.steps.isEmpty)
        #expect(links.parkedLink == "/orders/42")
        await world.clock.advance(by: .seconds(5))
        let config = try world.appConfig(allowing: ["/orders/"])
        links.appConfigLoaded(config)
        #expect(world.navigator.openedPaths == ["/orders/42"])
        links.appConfigLoaded(config)
        links.homeBuilt()
        #expect(world.navigator.openedPaths == ["/orders/42"])
    }

    @Test("LINK-01 a warm link before app-config waits for it and is screened then; the newest one wins")
    func warmLinkWaitsForAppConfig() throws {
        let world = ShellWorld()
        let links = DeepLinkScreener(dependencies: world.dependencies)
        _ = links.coldStart(link: nil)
        links.homeBuilt()
        links.linkOpened("/orders/41")
        links.linkOpened("/orders/42")
        #expect(world.navigator.steps.isEmpty)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        #expect(world.navigator.openedPaths == ["/orders/42"])

        let rejecting = ShellWorld()
        let screener = DeepLinkScreener(dependencies: rejecting.dependencies)
        _ = screener.coldStart(link: nil)
        screener.homeBuilt()
        screener.linkOpened("/admin/secret")
        screener.appConfigLoaded(try rejecting.appConfig(allowing: ["/orders/"]))
        #expect(rejecting.navigator.steps.isEmpty)
        #expect(screener.parkedLink == nil)
    }

    @Test(
        "LINK-02 a link still waiting for app-config 60 s after Home was built is dropped (60 s is kept)",
        arguments: [(60_000, true), (60_001, false)])
    func linkWaitingForAppConfigExpires(waited: Int, opens: Bool) async throws {
        let world = ShellWorld(platform: .android)
        let links = DeepLinkScreener(dependencies: world.dependencies)
        _ = links.coldStart(link: "/orders/42")
        await world.clock.advance(by: .seconds(20))
        links.homeBuilt()
        await world.clock.advance(by: .milliseconds(waited))
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        #expect(world.navigator.openedPaths == (opens ? ["/orders/42"] : []))
        #expect(links.parkedLink == nil)
    }

    @Test("LINK-02 Android parks a warm link that arrives before Home and replays it once Home is built")
    func androidParksWarmLink() async throws {
        let world = ShellWorld(platform: .android)
        let links = DeepLinkScreener(dependencies: world.dependencies)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        links.linkOpened("/orders/41")
        links.linkOpened("/orders/42")
        #expect(world.navigator.steps.isEmpty)
        #expect(links.parkedLink == "/orders/42")
        await world.clock.advance(by: .seconds(60))
        links.homeBuilt()
        #expect(world.navigator.openedPaths == ["/orders/42"])
    }

    @Test("LINK-02 a parked link older than 60 s is dropped (60.001 s)")
    func staleParkedLinkDropped() async throws {
        let world = ShellWorld(platform: .android)
        let links = DeepLinkScreener(dependencies: world.dependencies)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        links.linkOpened("/orders/42")
        await world.clock.advance(by: .milliseconds(60_001))
        links.homeBuilt()
        #expect(world.navigator.steps.isEmpty)
        #expect(links.parkedLink == nil)
    }

    @Test("LINK-02 iOS hands only a running scene its warm links: they are screened at once")
    func iosOpensWarmLinkAtOnce() throws {
        let world = ShellWorld(platform: .ios)
        let links = DeepLinkScreener(dependencies: world.dependencies)
        links.appConfigLoaded(try world.appConfig(allowing: ["/orders/"]))
        links.linkOpened("/orders/42")
        #expect(world.navigator.openedPaths == ["/orders/42"])
        #expect(links.parkedLink == nil)
    }

    @Test("LINK-03 the cold start after a language reload reopens the saved route, once")
    func languageReloadRestoresRoute() {
        let world = ShellWorld()
        let before = DeepLinkScreener(dependencies: world.dependencies)
        _ = before.coldStart(link: nil)
        before.languageReloadRequested(currentRoute: "/orders/42")

        let after = DeepLinkScreener(dependencies: world.dependencies)
        #expect(after.coldStart(link: nil) == "/orders/42")
        #expect(world.storage.values[StorageKey.languageReloadRoute] == nil)
        let next = DeepLinkScreener(dependencies: world.dependencies)
        #expect(next.coldStart(link: nil) == "/")
    }

    @Test(
        "LINK-03 a saved route that is not an in-app path is not reopened",
        arguments: ["//evil.com", "https://x.y", "/a/../b"])
    func unsafeSavedRouteIgnored(route: String) {
        let world = ShellWorld()
        world.storage.values[StorageKey.languageReloadRoute] = route
        let links = DeepLinkScreener(dependencies: world.dependencies)
        #expect(links.coldStart(link: nil) == "/")
        #expect(world.storage.values[StorageKey.languageReloadRoute] == nil)
    }
}
