import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import HeraldServerModel
import Synchronization
import Testing

/// The SDK's models on the live client against a real `herald` process, driven the way an app
/// drives them: the person's taps are model methods, the OS and the router are fakes (they stand
/// for the device), and the clock is a test clock, so the 4 s undo window passes by hand.
@Suite("App journey (end to end)", .serialized)
@MainActor struct AppJourneyTests {
    /// The app's session: `nil` while a guest; the client reads it before every request.
    final class Session: Sendable {
        private let token = Mutex<String?>(nil)
        var current: String? { token.withLock { $0 } }
        func signIn(_ value: String) { token.withLock { $0 = value } }
    }

    /// One app install: the live API plus fakes of the device.
    @MainActor struct App {
        let session = Session()
        let clock = TestClock()
        let permission = FakePermissionSystem(.notDetermined)
        let tokens = FakePushTokens(PushToken(value: String(repeating: "ab", count: 32), provider: .apns))
        let navigator = RecordingNavigator()
        let storage = InMemoryKeyValueStore()
        let analytics = RecordingAnalytics()
        let client: HeraldClient
        let dependencies: HeraldDependencies

        init(server: EndToEndServer) {
            let session = self.session
            client = HeraldClient(baseURL: server.baseURL, requestTimeout: .seconds(10)) { session.current }
            let platform = PlatformFacts(
                platform: .ios, appVersion: "2.3.0", installSource: .appStore, locale: "en_GB",
                timeZone: "Europe/Amsterdam")
            var dependencies = HeraldDependencies.failing
            dependencies.api = .live(client, platform: platform)
            dependencies.permission = permission.client
            dependencies.pushToken = tokens.client
            dependencies.navigator = navigator.navigator
            dependencies.storage = storage.store
            dependencies.analytics = analytics.client
            dependencies.clock = clock.dependency
            dependencies.platform = platform
            self.dependencies = dependencies
        }

        func signIn(as user: String, on server: EndToEndServer) async throws {
            session.signIn(try await server.token(for: user))
        }
    }

    @Test("a guest signs in, registers for push and sees a new notification arrive in the open inbox")
    func signInRegisterAndReceive() async throws {
        try await withEndToEndServer { server in
            let app = App(server: server)
            let inbox = InboxModel(dependencies: app.dependencies, isSignedIn: false)
            inbox.appeared()
            #expect(inbox.content == .empty(.signInRequired))
            inbox.signInTapped()
            #expect(app.navigator.steps == [.signIn])

            // The auth sheet signs the person in; the shell mounts and registers for push.
            try await app.signIn(as: "alice", on: server)
            inbox.sessionChanged(isSignedIn: true)
            try await eventually("the empty inbox") { inbox.content == .empty(.allCaughtUp) }

            app.permission.nextAnswer = .state(.authorized)
            let registrar = PushRegistrar(presentation: .askAtSignIn, dependencies: app.dependencies)
            await registrar.shellMounted(userID: "alice")
            #expect(registrar.status == .registered)
            #expect(app.analytics.names == ["notification_permission_granted"])
            let devices = try await server.publisherRequest("GET", "/v1/users/alice/devices")
            let device = try #require(try devices.decode(DeviceList.self).items.first)
            #expect(device.token == String(repeating: "ab", count: 32) && device.provider == .apns)
            #expect(device.appVersion == "2.3.0" && device.timeZone == "Europe/Amsterdam")
            #expect(try await app.client.preferences().osPermissionGranted == true)

            // A notification published now reaches the open inbox through the live stream.
            let id = try await server.publish(to: "alice", type: "order.shipped", data: ["orderId": "42"])
            try await eventually("the new row") { inbox.rows.first?.id == id }
            #expect(inbox.rows.first?.showsUnreadDot == true)
            #expect(inbox.rows.first?.destination == .typed(path: "/orders/42"))

            // Signing out unregisters the token.
            await registrar.signingOut()
            let after = try await server.publisherRequest("GET", "/v1/users/alice/devices")
            #expect(try after.decode(DeviceList.self).items.isEmpty)
            inbox.disappeared()
        }
    }

    @Test("filter by a category, then delete one row with undo and one without")
    func filterAndDelete() async throws {
        try await withEndToEndServer { server in
            let app = App(server: server)
            try await app.signIn(as: "bob", on: server)
            let order = try await server.publish(to: "bob", type: "order.shipped", data: ["orderId": "1"])
            let promo = try await server.publish(to: "bob", type: "promo.flash", title: "Flash sale")
            let payment = try await server.publish(to: "bob", type: "payment.refunded", title: "Refunded")

            let inbox = InboxModel(dependencies: app.dependencies, isSignedIn: true)
            inbox.appeared()
            try await eventually("three rows") { inbox.rows.map(\.id) == [payment, promo, order] }
            #expect(inbox.chips.map(\.title) == ["All", "Orders", "Rewards", "Promotions", "Reminders", "Account"])

            inbox.chipTapped(.category("orders"))
            try await eventually("the orders") { inbox.rows.map(\.id) == [payment, order] }

            // With undo: the row comes back and the server never deletes it.
            inbox.rowSwiped(id: order)
            #expect(inbox.rows.map(\.id) == [payment])
            #expect(inbox.toast?.title == "Notification deleted")
            inbox.undoTapped()
            #expect(inbox.rows.map(\.id) == [payment, order])
            await app.clock.advance(by: .seconds(4))
            #expect(try await app.client.notification(id: order).id == order)

            // Without undo: the delete runs after 4 s and the server forgets the row.
            let watcher = LiveEventRecorder(try await server.client(user: "bob").liveEvents())
            defer { watcher.cancel() }
            // The counts every stream opens with: it is subscribed, so the change below reaches it.
            try await watcher.connected()
            inbox.rowSwiped(id: payment)
            await app.clock.advance(by: .milliseconds(3_999))
            #expect(try await app.client.notification(id: payment).id == payment)
            await app.clock.advance(by: .milliseconds(1))
            let deleted = try await watcher.next {
                if case .updated(let change) = $0 { return change.id == payment && change.deleted }
                return false
            }
            #expect(deleted != nil)
            await #expect {
                _ = try await app.client.notification(id: payment)
            } throws: { ($0 as? HeraldAPIError)?.kind == .notFound }
            #expect(inbox.rows.map(\.id) == [order])
            inbox.chipTapped(.all)
            #expect(inbox.rows.map(\.id) == [promo, order])
            inbox.disappeared()
        }
    }

    @Test("open a detail page from the inbox, then change preferences")
    func detailAndPreferences() async throws {
        try await withEndToEndServer { server in
            let app = App(server: server)
            try await app.signIn(as: "carol", on: server)
            let id = try await server.publish(
                to: "carol", type: "campaign.spring", title: "Spring rewards", body: "Double points",
                detail: NotificationDetail(
                    heroImageURL: "https://cdn.example.com/spring.jpg", html: "<p>Double <b>points</b></p>",
                    actionLabel: "See rewards", actionPath: "/loyalty"))

            let inbox = InboxModel(dependencies: app.dependencies, isSignedIn: true)
            inbox.appeared()
            try await eventually("the row") { inbox.rows.first?.id == id }
            inbox.rowTapped(id: id)
            #expect(app.navigator.openedPaths == ["/notifications/detail/\(id)"])

            #expect(inbox.rows.first?.showsUnreadDot == false)
            let watcher = LiveEventRecorder(try await server.client(user: "carol").liveEvents())
            defer { watcher.cancel() }
            // The counts every stream opens with: it is subscribed, so the change below reaches it.
            try await watcher.connected()
            let detail = NotificationDetailModel(id: id, dependencies: app.dependencies, log: { _ in })
            detail.appeared()
            try await eventually("the loaded page") {
                if case .loaded = detail.state { return true }
                return false
            }
            guard case .loaded(let content) = detail.state else { return }
            #expect(content.layout == .hero(URL(string: "https://cdn.example.com/spring.jpg")!))
            #expect(content.title == "Spring rewards" && content.badge == "New")
            #expect(content.body == .html("<p>Double <b>points</b></p>"))
            #expect(content.action?.title == "See rewards")
            detail.ctaTapped()
            #expect(app.navigator.openedPaths.last == "/loyalty")
            // The page marked the notification read on the server.
            let read = try await watcher.next {
                if case .updated(let change) = $0 { return change.id == id && change.readAt != nil }
                return false
            }
            #expect(read != nil)
            #expect(try await app.client.notification(id: id).readAt != nil)
            inbox.disappeared()

            // Two sources have written to carol: the screen shows a switch for each, from the server.
            for (source, name) in [("github", "GitHub"), ("jira", "Jira")] {
                _ = try await server.publish(
                    PublishRequest(
                        recipients: ["carol"], type: "general", title: "From \(name)", body: "",
                        source: NotificationSource(id: source, name: name)))
            }
            app.permission.current = .authorized
            let preferences = PreferencesModel(dependencies: app.dependencies)
            await preferences.appeared()
            guard case .loaded(let form) = preferences.screen else {
                Issue.record("preferences did not load: \(preferences.screen)")
                return
            }
            guard case .switches(let sources) = form.sources.content else {
                Issue.record("the sources did not load: \(form.sources)")
                return
            }
            #expect(sources.map(\.title) == ["Jira", "GitHub"] && sources.allSatisfy(\.isOn))
            await preferences.sourceToggled(id: "github", isOn: false)
            #expect(try await app.client.preferences().mutedSources == ["github"])
            #expect(try await app.client.sources().items.map(\.muted) == [false, true])
            #expect(
                form.categories.map(\.title) == [
                    "Order updates", "Loyalty & rewards", "Promotions & offers", "Expiry reminders",
                ])
            await preferences.categoryToggled("promotions", isOn: false)
            let saved = try await app.client.preferences()
            #expect(saved.categories["promotions"] == false && saved.categories["orders"] == true)
            // Quiet hours and the digest, in the device's time zone, through the server's strict PATCH.
            await preferences.quietHoursToggled(isOn: true)
            await preferences.digestToggled(isOn: true)
            await preferences.quietHoursEndChanged(to: TimeOfDay(hour: 6, minute: 30))
            #expect(preferences.toast == nil)
            let attention = try await app.client.preferences()
            #expect(attention.quietHours == QuietHours(start: "22:00", end: "06:30", timeZone: "Europe/Amsterdam"))
            #expect(attention.digest == DigestSettings(enabled: true, localTime: "08:00"))
            #expect(attention.timeZone == "Europe/Amsterdam")

            // A fresh visit shows what the server kept.
            let again = PreferencesModel(dependencies: app.dependencies)
            await again.appeared()
            guard case .loaded(let reloaded) = again.screen else { return }
            #expect(reloaded.categories.first { $0.id == "promotions" }?.isOn == false)
            #expect(reloaded.quietHours.end?.time == TimeOfDay(hour: 6, minute: 30))
            #expect(reloaded.digest.time?.time == TimeOfDay(hour: 8, minute: 0))
        }
    }

    @Test(
        "a push payload built by the server routes to the right screen, from every provider, and each tap reports the open"
    )
    func serverBuiltPushRoutes() async throws {
        try await withEndToEndServer { server in
            let app = App(server: server)
            try await app.signIn(as: "dave", on: server)
            let push = PushOptions(send: true, priority: .high, sound: "default")
            let order = try await server.publish(
                to: "dave", type: "order.shipped", data: ["orderId": "42", "eventKind": "order.webhook"], push: push)
            let rich = try await server.publish(
                to: "dave", type: "promo.flash", data: ["productId": "p-9"],
                detail: NotificationDetail(html: "<p>Half price</p>"), push: push)
            let linked = try await server.publish(
                to: "dave", type: "general", deepLink: "/loyalty/tiers", push: push)

            // The router's open reports, handed to the test as the server answers them.
            let opens = Mailbox<NotificationOpened>()
            var dependencies = app.dependencies
            let markOpened = dependencies.api.markOpened
            dependencies.api.markOpened = { id in
                let opened = try await markOpened(id)
                opens.put(opened)
                return opened
            }
            let router = PushRouter(
                dependencies: dependencies, catalog: .standard, allowedDeepLinkPrefixes: ["/loyalty"],
                lastNotificationResponse: { nil })
            await router.authHydrated()

            for (id, expected) in [
                (order, "/orders/42"), (rich, "/notifications/detail/\(rich)"), (linked, "/loyalty/tiers"),
            ] {
                let preview = try await server.publisherRequest("GET", "/v1/notifications/\(id)/push-preview")
                let object = try #require(try preview.json() as? [String: Any])
                // APNs: the data keys sit at the top level of userInfo, beside `aps`.
                let apns = try #require(object["apns"] as? [String: Any])
                #expect(router.notificationTapped(apns))
                #expect(app.navigator.openedPaths.last == expected, "APNs \(id)")
                // FCM: the message's data map. Expo: the message's data object.
                let fcm = try #require((object["fcm"] as? [String: Any])?["message"] as? [String: Any])
                #expect(router.notificationTapped(try #require(fcm["data"] as? [String: Any])))
                #expect(app.navigator.openedPaths.last == expected, "FCM \(id)")
                let expo = try #require(object["expo"] as? [String: Any])
                #expect(router.notificationTapped(["data": try #require(expo["data"])]))
                #expect(app.navigator.openedPaths.last == expected, "Expo \(id)")
            }
            #expect(app.navigator.openedPaths.count == 9)

            // Every tap reported its open; the server kept each notification's first, which its
            // publisher reads on the deliveries.
            var firstOpens: [String: Date] = [:]
            for _ in 0..<9 {
                let opened = try #require(try await opens.take(within: .seconds(10), "an open"))
                #expect(opened.openedAt == firstOpens[opened.id, default: opened.openedAt], "the first open is kept")
                firstOpens[opened.id] = opened.openedAt
            }
            #expect(Set(firstOpens.keys) == [order, rich, linked])
            for id in [order, rich, linked] {
                let response = try await server.publisherRequest("GET", "/v1/notifications/\(id)/deliveries")
                let items = try #require((try response.json() as? [String: Any])?["items"] as? [[String: Any]])
                #expect(!items.isEmpty && items.allSatisfy { $0["openedAt"] is String }, "\(response.text)")
            }
        }
    }
}
