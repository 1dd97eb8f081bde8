import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import Testing

@Suite("Notification deliveries")
struct DeliveryTests {
    /// The deliveries answer as a publisher reads it.
    struct Answer: Decodable {
        struct Item: Decodable, Equatable {
            var id: String
            var deviceToken: String?
            var provider: String?
            var platform: String?
            var status: String
            var reason: String?
            var attempts: Int
            var nextAttemptAt: Date?
            /// The HTTP status of the provider's answer to the last attempt.
            var providerStatus: Int?
            /// When the recipient first opened the notification from a push.
            var openedAt: Date?
            var updatedAt: Date
        }
        var items: [Item]
    }

    @Test("each active device has its masked token, provider, platform and status; no push, no items")
    func list() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        try await withServer(now: { now }) { server in
            let key = try await server.apiKey()
            let alice = try server.token("alice")
            for registration in [
                DeviceRegistration(
                    token: String(repeating: "a", count: 56) + "0123abcd", provider: .apns, platform: .ios),
                DeviceRegistration(token: "fcm-token-for-the-pixel-98765432", provider: .fcm, platform: .android),
            ] {
                let response = try await server.send("POST", "/v1/me/devices", body: registration, token: alice)
                #expect(response.status == 200, "\(response.text)")
            }
            let ids = try await server.publish(
                to: ["alice", "bob"], extra: #","push":{"send":true,"ttlSeconds":60}"#, key: key)

            let response = try await server.get("/v1/notifications/\(ids[0])/deliveries", token: key)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.text.contains(#""reason":null"#), "unset fields are spelled out: \(response.text)")
            let items = try response.decode(Answer.self).items.sorted { $0.deviceToken ?? "" < $1.deviceToken ?? "" }
            #expect(items.map(\.deviceToken) == ["…0123abcd", "…98765432"])
            #expect(items.map(\.provider) == ["apns", "fcm"] && items.map(\.platform) == ["ios", "android"])
            #expect(items.allSatisfy { $0.status == "queued" && $0.reason == nil && $0.attempts == 0 })
            #expect(items.allSatisfy { $0.nextAttemptAt == now && $0.updatedAt == now })
            #expect(Set(items.map(\.id)).count == 2)
            #expect(!response.text.contains(String(repeating: "a", count: 9)), "the full token never leaves")

            let bob = try await server.get("/v1/notifications/\(ids[1])/deliveries", token: key).decode(Answer.self)
            #expect(bob.items.map(\.status) == ["skipped"] && bob.items.map(\.reason) == ["no_device"])
            #expect(bob.items.first?.deviceToken == nil && bob.items.first?.provider == nil)

            let quiet = try await server.publish(to: ["alice"], key: key)
            let none = try await server.get("/v1/notifications/\(quiet[0])/deliveries", token: key)
            #expect(try none.decode(Answer.self).items.isEmpty)
        }
    }

    @Test("a preference switched off shows as skipped with its reason")
    func skipped() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let carol = try server.token("carol")
            let device = DeviceRegistration(token: "ExponentPushToken[carol-1234]", provider: .expo, platform: .ios)
            #expect(try await server.send("POST", "/v1/me/devices", body: device, token: carol).status == 200)
            _ = try await server.send(
                "PATCH", "/v1/me/preferences", json: #"{"categories":{"promotions":false}}"#, token: carol)
            let ids = try await server.publish(
                to: ["carol"], type: "promo.flash", extra: #","push":{"send":true}"#, key: key)
            let items = try await server.get("/v1/notifications/\(ids[0])/deliveries", token: key)
                .decode(Answer.self).items
            #expect(items.map(\.status) == ["skipped"] && items.map(\.reason) == ["category_off"])
            #expect(items.map(\.provider) == ["expo"])
        }
    }

    @Test("an unknown id answers 404 not_found; a user token or no key answers 401")
    func errors() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            expectError(try await server.get("/v1/notifications/nope/deliveries", token: key), 404, "not_found")
            let ids = try await server.publish(to: ["bob"], key: key)
            expectError(try await server.get("/v1/notifications/\(ids[0])/deliveries"), 401, "unauthenticated")
            expectError(
                try await server.get("/v1/notifications/\(ids[0])/deliveries", token: try server.token("bob")), 401,
                "unauthenticated")
        }
    }
}
