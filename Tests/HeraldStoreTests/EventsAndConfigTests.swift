import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Analytics events and app config")
struct EventsAndConfigTests {
    @Test("events are stored per user and counted")
    func events() async throws {
        try await withStore { (store) async throws in
            #expect(try await store.eventCount(userID: "u1") == 0)
            try await store.insertEvents(
                userID: "u1",
                [
                    AnalyticsEvent(name: "notification_banner_shown", at: at(1)),
                    AnalyticsEvent(
                        name: "notification_consent_accepted", at: at(2),
                        properties: [
                            "screen": .string("home"), "attempt": .number(2), "nested": .object(["a": .bool(true)]),
                        ]),
                ], receivedAt: at(3))
            try await store.insertEvents(userID: "u2", [AnalyticsEvent(name: "x", at: at(1))], receivedAt: at(3))
            try await store.insertEvents(userID: "u2", [], receivedAt: at(3))
            #expect(try await store.eventCount(userID: "u1") == 2)
            #expect(try await store.eventCount(userID: "u2") == 1)
            let properties = try store.read { db in
                try db.query("SELECT properties FROM analytics_events WHERE user_id = \("u1") ORDER BY seq") { row in
                    row.optionalText(0)
                }
            }
            #expect(properties == [nil, #"{"attempt":2,"nested":{"a":true},"screen":"home"}"#])
        }
    }

    @Test("app config is nil until set, round trips, and the last write wins")
    func appConfig() async throws {
        try await withStore { (store) async throws in
            #expect(try await store.appConfig() == nil)
            let document = AppConfigDocument(
                update: UpdatePolicy(
                    ios: PlatformUpdatePolicy(minimumVersion: "2.0.0", storeURL: "https://apps.apple.com/app/id1"),
                    android: PlatformUpdatePolicy(minimumVersion: "2.1.0", sideloadPrompt: true)),
                deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders", "https://example.com/"]),
                catalog: Catalog(
                    categories: [CatalogCategory(id: "orders", chip: "Orders", preferenceToggle: "Order updates")],
                    types: [
                        CatalogTypeRule(
                            prefix: "order", category: "orders",
                            route: TapRoute(path: "/orders/{orderId}", fallbackPath: "/orders"))
                    ]))
            try await store.setAppConfig(document, at: at(1))
            #expect(try await store.appConfig() == document)
            let replacement = AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: []))
            try await store.setAppConfig(replacement, at: at(2))
            #expect(try await store.appConfig() == replacement)
        }
    }
}
