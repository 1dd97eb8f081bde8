import HeraldKit
import HeraldKitTestSupport
import Testing

@Suite("App root redirect and Oops!")
@MainActor struct AppRouteTests {
    @Test("ROOT-01 the bare app path goes to the Home tab", arguments: ["/", "", "/?ref=push", "/#top"])
    func bareAppPathIsHome(path: String) {
        #expect(AppRouteTable.standard.route(for: path) == .tab(.home))
    }

    @Test("ROOT-01 tab roots are tabs, other known paths are screens over them")
    func tabsAndScreens() {
        let routes = AppRouteTable.standard
        #expect(routes.route(for: "/home") == .tab(.home))
        #expect(routes.route(for: "/loyalty") == .tab(.loyalty))
        #expect(routes.route(for: "/bag/") == .tab(.bag))
        #expect(routes.route(for: "/orders/42") == .screen(path: "/orders/42"))
        #expect(routes.route(for: "/notifications/detail/n1") == .screen(path: "/notifications/detail/n1"))
    }

    @Test(
        "NOTFOUND-01 a path no route matches is This screen doesn't exist.",
        arguments: [
            "/nowhere", "/orders/42/extra", "/products", "orders/42", "https://example.com/orders/42",
        ])
    func unmatchedPathIsNotFound(path: String) {
        #expect(AppRouteTable.standard.route(for: path) == .notFound(path: path))
    }

    @Test("NOTFOUND-01 Oops! shows its untranslated copy and links back to Home")
    func notFoundLinksHome() {
        let world = ShellWorld()
        let screen = NotFoundModel(path: "/nowhere", dependencies: world.dependencies)
        #expect(screen.title == "Oops!")
        #expect(screen.message == "This screen doesn't exist.")
        #expect(screen.goHomeLink == ButtonState(title: "Go to home screen!"))

        screen.goHomeTapped()
        #expect(world.navigator.openedPaths == ["/"])
        #expect(AppRouteTable.standard.route(for: world.navigator.openedPaths[0]) == .tab(.home))
    }
}
