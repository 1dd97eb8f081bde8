import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldPush
import Testing

@Suite("Push preview")
struct PushPreviewTests {
    @Test("PUSH-12 the preview shows every provider's body with the same data and the unseen count as badge")
    func preview() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let long = String(repeating: "y", count: 180)
            let ids = try await server.publish(
                to: ["alice"], title: "Shipped", body: long,
                extra: #","deepLink":"/orders/42","data":{"orderId":"42","eventKind":"order.webhook"},"#
                    + #""detail":{"html":"<p>Hi</p>"},"push":{"send":true,"priority":"normal","ttlSeconds":600,"#
                    + #""collapseId":"order-42","sound":"default"}"#,
                key: key)
            try await server.publish(to: ["alice"], key: key)

            let response = try await server.get("/v1/notifications/\(ids[0])/push-preview", token: key)
            #expect(response.status == 200, "\(response.text)")
            let preview = try response.decode(PushPreview.self)
            let data: [String: String] = [
                "notificationId": ids[0], "type": "order.shipped", "deepLink": "/orders/42", "hasDetail": "true",
                "eventKind": "order.webhook", "orderId": "42",
            ]
            #expect(preview.data == data)
            #expect(preview.apns.data == data && preview.fcm.message.data == data && preview.expo.data == data)
            #expect(PushData(preview.data)?.notificationId == ids[0])
            #expect(preview.apns.aps.badge == 2, "alice has two unseen notifications")
            #expect(preview.apns.aps.alert?.body == String(repeating: "y", count: 149) + "…")
            #expect(preview.apns.aps.sound == "default")
            #expect(preview.fcm.message.android.priority == .normal)
            #expect(preview.fcm.message.android.ttl == "600s")
            #expect(preview.fcm.message.android.collapseKey == "order-42")
            #expect(preview.fcm.message.apns.headers["apns-collapse-id"] == "order-42")
            #expect(preview.fcm.message.token == nil && preview.expo.to == nil)
            #expect(preview.expo.priority == .normal && preview.expo.ttl == 600 && preview.expo.badge == 2)

            let token = try server.token("alice")
            _ = try await server.send("POST", "/v1/me/notifications/seen", token: token)
            let seen = try await server.get("/v1/notifications/\(ids[0])/push-preview", token: key)
            #expect(try seen.decode(PushPreview.self).apns.aps.badge == 0, "the badge is the current unseen count")
        }
    }

    @Test("PUSH-07 without a sound a push plays the default one on every provider; \"none\" makes it silent")
    func sound() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let plain = try await server.publish(to: ["alice"], extra: #","push":{"send":true}"#, key: key)[0]
            let silent = try await server.publish(
                to: ["alice"], extra: #","push":{"send":true,"sound":"none"}"#, key: key)[0]

            let preview = try await server.get("/v1/notifications/\(plain)/push-preview", token: key)
                .decode(PushPreview.self)
            #expect(preview.apns.aps.sound == "default")
            #expect(preview.fcm.message.android.notification?.sound == "default")
            #expect(preview.fcm.message.apns.payload.aps.sound == "default")
            #expect(preview.expo.sound == "default")

            let quiet = try await server.get("/v1/notifications/\(silent)/push-preview", token: key)
            #expect(quiet.status == 200, "\(quiet.text)")
            #expect(!quiet.text.contains("sound"), "a silent push carries no sound key: \(quiet.text)")

            let empty = try await server.send(
                "POST", "/v1/notifications",
                json:
                    #"{"recipients":["alice"],"type":"order.shipped","title":"T","body":"B","push":{"send":true,"sound":""}}"#,
                token: key)
            expectError(empty, 400, "invalid")
            #expect(empty.text.contains(#"use \"none\" for a silent push"#), "\(empty.text)")
        }
    }

    @Test("an unknown id answers 404 not_found; a user token or no key answers 401")
    func errors() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            expectError(try await server.get("/v1/notifications/nope/push-preview", token: key), 404, "not_found")
            let ids = try await server.publish(to: ["bob"], key: key)
            expectError(try await server.get("/v1/notifications/\(ids[0])/push-preview"), 401, "unauthenticated")
            expectError(
                try await server.get("/v1/notifications/\(ids[0])/push-preview", token: try server.token("bob")), 401,
                "unauthenticated")
        }
    }

    @Test("a deleted row still previews: the publisher sees what was sent")
    func deletedRow() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let ids = try await server.publish(to: ["carol"], key: key)
            _ = try await server.delete("/v1/me/notifications/\(ids[0])", token: try server.token("carol"))
            let response = try await server.get("/v1/notifications/\(ids[0])/push-preview", token: key)
            #expect(response.status == 200)
            #expect(try response.decode(PushPreview.self).apns.aps.badge == 0)
        }
    }
}
