import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Push router: presentation and tap contexts")
@MainActor struct PushRouterTests {
    static func payload(id: String, type: String = "order.shipped", orderId: String = "o-7") -> [AnyHashable: Any] {
        [
            "aps": ["alert": ["title": "Shipped"]], "notificationId": id, "type": type, "hasDetail": "false",
            "orderId": orderId,
        ]
    }

    @Test("PUSH-07 a foreground push still shows a banner and plays a sound")
    func foregroundPresentation() {
        let router = PushRouter(
            dependencies: .failing, catalog: .standard, allowedDeepLinkPrefixes: [],
            lastNotificationResponse: { nil })
        let options = router.foregroundPushArrived()

        #expect(options.contains(.banner))
        #expect(options.contains(.sound))
        #expect(options == [.banner, .list, .sound, .badge])
    }

    @Test("PUSH-08 a tap while the app runs routes to the target at once, without waiting or reading the launch tap")
    func tapWhileRunning() async {
        let app = PushRouterHarness()
        await app.router.authHydrated()
        let handled = app.router.notificationTapped(Self.payload(id: "n-1"))

        #expect(handled)
        #expect(app.router.queuedTaps.isEmpty)
        #expect(app.navigator.openedPaths == ["/orders/o-7"])
        #expect(app.storage.values[StorageKey.handledPushNotificationId] == "n-1")
        #expect(app.launch.reads == 1, "only hydration reads the launch response")
    }

    @Test(
        "PUSH-09 a tap while backgrounded reaches the still-running app: it routes at once, and the resume replays nothing"
    )
    func tapWhileBackgrounded() async {
        // The app was launched by a tap, handled it, then went to the background.
        let app = PushRouterHarness(launchTap: PushTap(data: ["notificationId": "n-9", "type": "loyalty.points"]))
        await app.router.authHydrated()
        #expect(app.navigator.openedPaths == ["/loyalty"])

        app.router.notificationTapped(Self.payload(id: "n-2", type: "voucher.issued"))
        #expect(app.navigator.openedPaths == ["/loyalty", "/discounts"])
        // Coming back to the foreground re-runs the app's session check; the launch tap is
        // not read or routed again, and the background tap is not routed twice.
        await app.router.authHydrated()
        #expect(app.launch.reads == 1)
        #expect(app.navigator.openedPaths == ["/loyalty", "/discounts"])
        #expect(app.storage.values[StorageKey.handledPushNotificationId] == "n-2")
    }

    @Test(
        "PUSH-09 a tap while backgrounded during start-up waits for hydration and routes once, though the OS reports it as the last response too"
    )
    func tapWhileBackgroundedDuringStartUp() async {
        // Launched from the icon; while the session hydrates the person leaves the app and
        // taps a push, which the OS now also answers as the last notification response.
        let tap = PushTap(payload: Self.payload(id: "n-5", type: "voucher.issued"))
        let app = PushRouterHarness(launchTap: tap, holdsLaunchRead: true)
        let hydrating = Task { await app.router.authHydrated() }
        await app.launch.waitForRead()

        app.router.notificationTapped(Self.payload(id: "n-5", type: "voucher.issued"))
        #expect(app.router.queuedTaps.map(\.notificationId) == ["n-5"])
        #expect(app.navigator.openedPaths.isEmpty)

        app.launch.answer()
        await hydrating.value
        #expect(app.navigator.openedPaths == ["/discounts"])
        #expect(app.router.queuedTaps.isEmpty)
    }

    @Test("PUSH-10 the cold-launch tap is read once, only after auth hydration, and routed")
    func coldLaunchReadOnceAfterHydration() async {
        let app = PushRouterHarness(launchTap: PushTap(data: ["notificationId": "n-9", "type": "loyalty.points"]))
        #expect(app.launch.reads == 0)
        #expect(app.navigator.openedPaths.isEmpty)

        await app.router.authHydrated()
        await app.router.authHydrated()

        #expect(app.launch.reads == 1)
        #expect(app.navigator.openedPaths == ["/loyalty"])
    }

    @Test("PUSH-10 the launching tap is not replayed on the next launch")
    func launchTapNotReplayed() async {
        let tap = PushTap(data: ["notificationId": "n-9", "type": "loyalty.points"])
        let first = PushRouterHarness(launchTap: tap)
        await first.router.authHydrated()
        #expect(first.navigator.openedPaths == ["/loyalty"])

        let next = PushRouterHarness(launchTap: tap, storage: first.storage)
        await next.router.authHydrated()
        #expect(next.launch.reads == 1)
        #expect(next.navigator.openedPaths.isEmpty)
    }

    @Test("PUSH-10 a tap handled while running is not replayed as the next launch's response")
    func warmTapNotReplayedAtLaunch() async {
        let first = PushRouterHarness()
        await first.router.authHydrated()
        first.router.notificationTapped(Self.payload(id: "n-3"))

        let next = PushRouterHarness(launchTap: PushTap(payload: Self.payload(id: "n-3")), storage: first.storage)
        await next.router.authHydrated()
        #expect(next.navigator.openedPaths.isEmpty)
    }

    @Test("PUSH-10 taps before auth hydration wait, then route in order, each notification once")
    func tapsQueueUntilReady() async {
        let launchTap = PushTap(payload: Self.payload(id: "n-1"))
        let app = PushRouterHarness(launchTap: launchTap)
        app.router.notificationTapped(Self.payload(id: "n-1"))
        app.router.notificationTapped(Self.payload(id: "n-2", type: "promo.flash"))

        #expect(app.router.queuedTaps.map(\.notificationId) == ["n-1", "n-2"])
        #expect(app.navigator.openedPaths.isEmpty)

        await app.router.authHydrated()

        #expect(app.router.isReady)
        #expect(app.router.queuedTaps.isEmpty)
        #expect(app.navigator.openedPaths == ["/orders/o-7", "/"])
    }

    @Test("PUSH-12 pushes from every source share one contract and one handler")
    func everySourceOneHandler() async {
        let app = PushRouterHarness()
        await app.router.authHydrated()
        for (id, eventKind) in [("n-1", "task.assigned"), ("n-2", "agent.message"), ("n-3", "admin.broadcast")] {
            var payload = Self.payload(id: id)
            payload["eventKind"] = eventKind
            #expect(PushTap(payload: payload)?.eventKind == eventKind)
            app.router.notificationTapped(payload)
        }
        #expect(app.navigator.openedPaths == ["/orders/o-7", "/orders/o-7", "/orders/o-7"])
    }

    @Test("TAP-03 a navigation error lands in the inbox")
    func navigationErrorLandsInInbox() async {
        let app = PushRouterHarness()
        app.navigator.failingPaths = ["/orders/o-7"]
        await app.router.authHydrated()
        app.router.notificationTapped(Self.payload(id: "n-1"))

        #expect(app.navigator.openedPaths == ["/notifications"])
    }

    @Test("TAP-01 the router follows a deep link allowlisted by app-config, updated after launch")
    func routerUsesTheAllowlist() async {
        let app = PushRouterHarness()
        await app.router.authHydrated()
        var payload = Self.payload(id: "n-1")
        payload["deepLink"] = "/loyalty/tiers"
        app.router.notificationTapped(payload)
        app.router.allowedDeepLinkPrefixes = ["/loyalty"]
        payload["notificationId"] = "n-2"
        app.router.notificationTapped(payload)

        #expect(app.navigator.openedPaths == ["/orders/o-7", "/loyalty/tiers"])
    }

    @Test("A push that is not Herald's is left to the app")
    func foreignPushIgnored() async {
        let app = PushRouterHarness()
        await app.router.authHydrated()

        #expect(!app.router.notificationTapped(["aps": ["alert": "Hello"]]))
        await app.clock.settle()
        #expect(app.navigator.steps.isEmpty)
        #expect(app.storage.values.isEmpty)
        #expect(app.backend.calls.isEmpty, "no open is reported")
    }
}

@Suite("Push router: action buttons")
@MainActor struct PushActionTests {
    static let actions: [PushAction] = [
        .opens("TRACK") { tap in tap.data["orderId"].map { "/orders/\($0)/tracking" } },
        .opensNotification("VIEW"),
        .staysPut("SNOOZE"),
    ]

    @Test("a tapped action button routes by its identifier: its own path, the push's destination, or nowhere")
    func routesByIdentifier() async {
        let app = PushRouterHarness(actions: Self.actions)
        await app.router.authHydrated()
        let payload = PushRouterTests.payload(id: "n-1")
        #expect(app.router.notificationTapped(payload, actionIdentifier: "TRACK"))
        app.router.notificationTapped(PushRouterTests.payload(id: "n-2"), actionIdentifier: "VIEW")
        app.router.notificationTapped(PushRouterTests.payload(id: "n-3"), actionIdentifier: "SNOOZE")
        #expect(app.navigator.openedPaths == ["/orders/o-7/tracking", "/orders/o-7"])
        #expect(app.storage.values[StorageKey.handledPushNotificationId] == "n-3", "a staying action is handled too")
    }

    @Test(
        "the default identifiers (iOS, Expo) and an unregistered one route as a tap on the push; a dismissal opens nothing"
    )
    func defaultUnknownAndDismiss() async {
        let app = PushRouterHarness(actions: Self.actions)
        await app.router.authHydrated()
        for (index, identifier) in [
            "com.apple.UNNotificationDefaultActionIdentifier", "expo.modules.notifications.actions.DEFAULT",
            "FORGOTTEN", "",
        ].enumerated() {
            app.router.notificationTapped(PushRouterTests.payload(id: "n-\(index)"), actionIdentifier: identifier)
        }
        app.router.notificationTapped(
            PushRouterTests.payload(id: "n-9"), actionIdentifier: "com.apple.UNNotificationDismissActionIdentifier")
        #expect(app.navigator.openedPaths == Array(repeating: "/orders/o-7", count: 4))
        #expect(
            PushTap(
                payload: PushRouterTests.payload(id: "n"),
                actionIdentifier: "com.apple.UNNotificationDefaultActionIdentifier")?.actionIdentifier == nil)
    }

    @Test("an action that builds no path falls back to the push's destination; a failing path lands in the inbox")
    func fallbacks() async {
        let app = PushRouterHarness(actions: Self.actions + [.opens("BROKEN") { _ in "/nowhere" }])
        await app.router.authHydrated()
        let noOrder = PushTap(notificationId: "n-1", type: "loyalty.points", actionIdentifier: "TRACK")
        app.router.notificationTapped(noOrder)
        app.navigator.failingPaths = ["/nowhere"]
        app.router.notificationTapped(PushRouterTests.payload(id: "n-2"), actionIdentifier: "BROKEN")
        #expect(app.navigator.openedPaths == ["/loyalty", Catalog.inboxPath])
    }

    @Test("the cold-launch response of an action button routes by that action once auth is hydrated")
    func coldLaunchAction() async {
        let tap = PushTap(
            data: ["notificationId": "n-5", "type": "order.shipped", "orderId": "o-9"], actionIdentifier: "TRACK")
        let app = PushRouterHarness(launchTap: tap, actions: Self.actions)
        app.router.notificationTapped(PushRouterTests.payload(id: "n-6"), actionIdentifier: "SNOOZE")
        #expect(app.navigator.openedPaths.isEmpty)
        await app.router.authHydrated()
        #expect(app.navigator.openedPaths == ["/orders/o-9/tracking"])
        #expect(app.router.queuedTaps.isEmpty)
    }
}
