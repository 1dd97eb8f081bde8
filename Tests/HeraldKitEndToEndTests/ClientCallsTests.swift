import Foundation
import HeraldKit
import HeraldModel
import Testing

/// Every app call of the contract through `HeraldAPI.live` and a `HeraldClient`, against the
/// real `herald` executable.
@Suite("Live client calls (end to end)", .serialized)
@MainActor struct ClientCallsTests {
    static let iPhone = PlatformFacts(platform: .ios, appVersion: "1.0.0", installSource: .appStore)

    @Test("the inbox calls: pages with cursor and category, detail, read, opened, seen, delete, counts")
    func inbox() async throws {
        try await withEndToEndServer { server in
            let api = HeraldAPI.live(try await server.client(user: "alice"))
            let empty = try await api.notifications(nil, nil, 20)
            #expect(empty.items.isEmpty && empty.nextCursor == nil && empty.unreadCount == 0)

            let order = try await server.publish(
                to: "alice", type: "order.shipped", data: ["orderId": "42"], deepLink: "/orders/42",
                detail: NotificationDetail(html: "<p>On its way</p>", actionLabel: "Track", actionPath: "/orders/42"))
            let promo = try await server.publish(to: "alice", type: "promo.flash", title: "Sale")
            let delivered = try await server.publish(to: "alice", type: "order.delivered", title: "Delivered")

            let first = try await api.notifications(nil, nil, 2)
            #expect(first.items.map(\.id) == [delivered, promo])
            #expect(first.unreadCount == 3 && first.unseenCount == 3)
            let cursor: String = try #require(first.nextCursor)
            let second = try await api.notifications(cursor, nil, 2)
            #expect(second.items.map(\.id) == [order] && second.nextCursor == nil)
            #expect(try await api.notifications(nil, "orders", 20).items.map(\.id) == [delivered, order])

            let detail = try await api.notification(order)
            #expect(detail.type == "order.shipped" && detail.category == "orders" && detail.hasDetail)
            #expect(detail.data == ["orderId": "42"] && detail.deepLink == "/orders/42")
            #expect(detail.detail?.actionPath == "/orders/42" && detail.detail?.html?.contains("On its way") == true)
            #expect(abs(detail.createdAt.timeIntervalSinceNow) < 120, "RFC 3339 times decode")

            let read = try await api.markRead(order)
            #expect(read.readAt != nil && read.seenAt != nil)
            let opened = try await api.markOpened(order)
            #expect(opened.id == order && abs(opened.openedAt.timeIntervalSinceNow) < 120)
            #expect(try await api.markOpened(order) == opened, "the first open is kept")
            #expect(try await api.counts() == Counts(unread: 2, unseen: 2))
            #expect(try await api.markAllSeen() == Counts(unread: 2, unseen: 0))
            try await api.delete(promo)
            try await api.delete(promo)
            #expect(try await api.counts() == Counts(unread: 1, unseen: 0))
            #expect(try await api.notifications(nil, nil, 20).items.map(\.id) == [delivered, order])
        }
    }

    @Test("preferences, permission, devices and analytics calls")
    func preferencesDevicesEvents() async throws {
        try await withEndToEndServer { server in
            let api = HeraldAPI.live(try await server.client(user: "bob"))
            let defaults = try await api.preferences()
            #expect(defaults.globalEnabled && defaults.osPermissionGranted == nil && defaults.quietHours == nil)

            let window = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
            let patched = try await api.updatePreferences(
                PreferencesPatch(categories: ["promotions": false], quietHours: .some(window)))
            #expect(patched.categories["promotions"] == false && patched.quietHours == window)
            let cleared = try await api.updatePreferences(PreferencesPatch(quietHours: .some(nil)))
            #expect(cleared.quietHours == nil && cleared.categories["promotions"] == false)

            let denied = try await api.recordPermission(false)
            #expect(denied.osPermissionGranted == false && !denied.globalEnabled)
            let synced = try await api.syncPermission(.granted)
            #expect(synced.osPermissionGranted == true)

            // A token whose characters must be escaped in the DELETE path.
            let token = "ExponentPushToken[e2e+token%1]"
            let device = try await api.registerDevice(
                DeviceRegistration(
                    token: token, provider: .expo, platform: .ios, environment: .development, appVersion: "1.0.0",
                    locale: "nl-NL", timeZone: "Europe/Amsterdam"))
            #expect(device.token == token && device.userId == "bob" && device.active)
            #expect(try await devices(of: "bob", server) == [token])
            try await api.unregisterDevice(token)
            #expect(try await devices(of: "bob", server).isEmpty)

            try await api.sendEvents([
                AnalyticsEvent(name: "notification_opened", at: Date(), properties: ["source": .string("e2e")])
            ])

            // Live Activity tokens: one that starts activities, one activity's (upper-case hex is stored lower).
            let start = try await api.registerLiveActivityToken(
                LiveActivityTokenRegistration(
                    token: String(repeating: "AB", count: 32), attributesType: "DeliveryAttributes",
                    kind: .pushToStart))
            #expect(start.token == String(repeating: "ab", count: 32) && start.kind == .pushToStart)
            #expect(start.activityId == nil && start.userId == "bob" && start.active)
            let update = try await api.registerLiveActivityToken(
                LiveActivityTokenRegistration(
                    token: String(repeating: "cd", count: 32), attributesType: "DeliveryAttributes",
                    activityId: "order-42", environment: .development))
            #expect(update.kind == .update && update.activityId == "order-42" && update.environment == .development)
            await #expect(throws: HeraldAPIError.self) {
                try await api.registerLiveActivityToken(
                    LiveActivityTokenRegistration(token: "not-hex", attributesType: "DeliveryAttributes"))
            }
            // Sign-out drops it (idempotent); registering it again works as new.
            try await api.unregisterLiveActivityToken(String(repeating: "cd", count: 32))
            try await api.unregisterLiveActivityToken(String(repeating: "cd", count: 32))
        }
    }

    @Test("app config: a guest asks without a token; the install facts reach the update decision")
    func appConfig() async throws {
        try await withEndToEndServer { server in
            let guest = server.client(token: nil)
            let plain = try await guest.appConfig(platform: nil, version: nil, installSource: nil)
            #expect(plain.update == nil && !plain.catalog.categories.isEmpty)

            let document = AppConfigDocument(
                update: UpdatePolicy(
                    ios: PlatformUpdatePolicy(minimumVersion: "1.7.0", storeURL: "https://apps.apple.com/app/id1")),
                deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders/", "https://shop.example.com/"]))
            let put = try await server.publisherRequest("PUT", "/v1/app-config", body: document)
            #expect(put.status == 200, "\(put.text)")

            let config = try await HeraldAPI.live(guest, platform: Self.iPhone).appConfig()
            #expect(
                config.update
                    == UpdateDecision(
                        kind: .version, minimumVersion: "1.7.0", storeURL: "https://apps.apple.com/app/id1"))
            #expect(config.deepLinks.allowedPrefixes == ["/orders/", "https://shop.example.com/"])
            let unknownSource = PlatformFacts(platform: .ios, appVersion: "1.0.0", installSource: .unknown)
            #expect(try await HeraldAPI.live(guest, platform: unknownSource).appConfig().update == nil)
        }
    }

    private func devices(of user: String, _ server: EndToEndServer) async throws -> [String] {
        let response = try await server.publisherRequest("GET", "/v1/users/\(user)/devices")
        return try response.decode(DeviceList.self).items.map(\.token)
    }
}
