import Foundation
import HeraldModel
import HeraldSandbox
import HeraldServerModel
import Testing

/// Every payload feature of the publish `push` object, over real sockets: published through the
/// HTTP API, sent by the delivery worker, and read back from what each look-alike received.
@Suite("Push payload features against the sandboxes", .serialized)
struct PushFeatureTests {
    static let rich =
        #","priority":"high","sound":{"name":"alarm.caf","critical":true,"volume":0.75},"#
        + #""interruptionLevel":"time-sensitive","relevanceScore":0.5,"threadId":"order-42","#
        + #""category":"ORDER_ACTIONS","imageURL":"https://cdn.example.com/box.png","subtitle":"Order 42","#
        + #""channelId":"orders","analyticsLabel":"shipped_v2""#

    @Test("APNs and FCM receive every feature where each provider reads it")
    func apnsAndFCM() async throws {
        try await PushFixture.run { fixture in
            let deviceToken = PushFixture.deviceToken()
            let registrationToken = PushFixture.registrationToken()
            try await fixture.register(deviceToken, for: "ana")
            try await fixture.register(registrationToken, provider: .fcm, platform: .android, for: "ana")
            let id = try await fixture.publish(to: "ana", push: Self.rich)
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent", "sent"], "\(items)")

            let apns = try #require(fixture.sandbox.accepted(for: deviceToken).first)
            #expect(apns.pushType == "alert" && apns.priority == 10)
            let payload = apns.payloadObject
            let aps = try #require(payload["aps"] as? [String: Any])
            #expect(
                (aps["alert"] as? [String: String])
                    == ["title": "Your order shipped", "subtitle": "Order 42", "body": "Arrives Friday"])
            let sound = try #require(aps["sound"] as? [String: Any])
            #expect(sound["critical"] as? Int == 1 && sound["name"] as? String == "alarm.caf")
            #expect(sound["volume"] as? Double == 0.75)
            #expect(aps["interruption-level"] as? String == "time-sensitive")
            #expect(aps["relevance-score"] as? Double == 0.5)
            #expect(aps["thread-id"] as? String == "order-42" && aps["category"] as? String == "ORDER_ACTIONS")
            #expect(aps["mutable-content"] as? Int == 1 && aps["content-available"] == nil)
            #expect(aps["badge"] as? Int == 1)
            #expect(payload["imageURL"] as? String == "https://cdn.example.com/box.png", "for the service extension")
            #expect(payload["notificationId"] as? String == id)

            let message = try #require(fixture.fcm.accepted(for: registrationToken).first?.message)
            #expect(
                (message["notification"] as? [String: String])
                    == [
                        "title": "Your order shipped", "body": "Arrives Friday",
                        "image": "https://cdn.example.com/box.png",
                    ])
            #expect((message["fcm_options"] as? [String: String]) == ["analytics_label": "shipped_v2"])
            let android = try #require(message["android"] as? [String: Any])
            #expect(android["priority"] as? String == "HIGH")
            #expect(
                (android["notification"] as? [String: String])
                    == ["sound": "alarm.caf", "click_action": "ORDER_ACTIONS", "channel_id": "orders"])
            let override = try #require(message["apns"] as? [String: Any])
            #expect((override["fcm_options"] as? [String: String]) == ["image": "https://cdn.example.com/box.png"])
            let overrideAPS = try #require((override["payload"] as? [String: Any])?["aps"] as? [String: Any])
            #expect(overrideAPS["interruption-level"] as? String == "time-sensitive")
            #expect(overrideAPS["thread-id"] as? String == "order-42" && overrideAPS["mutable-content"] as? Int == 1)
        }
    }

    @Test("a TTL of 0 is sent once, at once, with apns-expiration 0")
    func ttlZero() async throws {
        try await PushFixture.run { fixture in
            let deviceToken = PushFixture.deviceToken()
            try await fixture.register(deviceToken, for: "ana")
            let id = try await fixture.publish(to: "ana", push: #","ttlSeconds":0"#)
            #expect(try await fixture.settledDeliveries(of: id).map(\.status) == ["sent"])
            #expect(fixture.sandbox.accepted(for: deviceToken).map(\.expiration) == [0])
        }
    }

    @Test("a background update: APNs background at priority 5 with content-available alone, FCM data only")
    func background() async throws {
        try await PushFixture.run { fixture in
            let deviceToken = PushFixture.deviceToken()
            let registrationToken = PushFixture.registrationToken()
            try await fixture.register(deviceToken, for: "ben")
            try await fixture.register(registrationToken, provider: .fcm, platform: .android, for: "ben")
            let id = try await fixture.publish(to: "ben", push: #","contentAvailable":true,"collapseId":"sync""#)
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent", "sent"], "\(items)")

            let apns = try #require(fixture.sandbox.accepted(for: deviceToken).first)
            #expect(apns.pushType == "background" && apns.priority == 5 && apns.collapseID == "sync")
            #expect(
                (apns.payloadObject["aps"] as? [String: Int]) == ["content-available": 1], "no alert, sound or badge")
            #expect(apns.payloadObject["notificationId"] as? String == id, "the data still tells the app what changed")

            let message = try #require(fixture.fcm.accepted(for: registrationToken).first?.message)
            #expect(message["notification"] == nil, "a data-only message")
            #expect((message["data"] as? [String: String])?["notificationId"] == id)
            let android = try #require(message["android"] as? [String: Any])
            #expect(android["priority"] as? String == "NORMAL" && android["notification"] == nil)
            let headers = (message["apns"] as? [String: Any])?["headers"] as? [String: String]
            #expect(headers?["apns-push-type"] == "background" && headers?["apns-priority"] == "5")

            // The inbox row is there as usual.
            let row = try await fixture.server.get("/v1/notifications/\(id)", token: fixture.apiKey)
            #expect(row.status == 200 && row.text.contains("Your order shipped"), "\(row.text)")
        }
    }

    @Test("Expo receives every feature by its own names, and a background update without title or body")
    func expo() async throws {
        try await ExpoFixture.run { fixture in
            let tokens = ExpoFixture.tokens(2)
            try await fixture.register([tokens[0]], for: "cleo")
            try await fixture.register([tokens[1]], for: "dan")
            let rich = try #require(
                try await fixture.server.publish(
                    to: ["cleo"], extra: #","push":{"send":true,"collapseId":"order-42""# + Self.rich + "}",
                    key: fixture.apiKey
                ).first)
            let background = try #require(
                try await fixture.server.publish(
                    to: ["dan"], extra: #","push":{"send":true,"contentAvailable":true}"#, key: fixture.apiKey
                ).first)
            for id in [rich, background] {
                let rows = try await fixture.settledDeliveries(of: id)
                #expect(rows.map(\.status) == [.sent], "\(rows)")
            }

            let message = try #require(fixture.sandbox.accepted(for: tokens[0]).first)
            #expect(message.string("title") == "Your order shipped" && message.string("body") == "Arrives Friday")
            #expect(message.string("subtitle") == "Order 42" && message.string("categoryId") == "ORDER_ACTIONS")
            #expect(message.string("channelId") == "orders" && message.string("interruptionLevel") == "time-sensitive")
            #expect(message.string("collapseId") == "order-42" && message.string("priority") == "high")
            #expect(message.fields["richContent"] == .object(["image": .string("https://cdn.example.com/box.png")]))
            #expect(message.fields["mutableContent"] == .bool(true))
            #expect(
                message.fields["sound"]
                    == .object(["critical": .bool(true), "name": .string("alarm.caf"), "volume": .number(0.75)]))
            #expect(message.fields["_contentAvailable"] == nil)

            let quiet = try #require(fixture.sandbox.accepted(for: tokens[1]).first)
            #expect(quiet.fields["_contentAvailable"] == .bool(true))
            #expect(quiet.string("title") == nil && quiet.string("body") == nil && quiet.fields["sound"] == nil)
            #expect(quiet.fields["badge"] == nil && quiet.data["notificationId"] == background)
        }
    }

    @Test("a push too large for a provider at its smallest is refused at publish, naming the provider and by how much")
    func refusedAtPublish() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            // Five values of 1,000 bytes: within the data limits, over every provider's 4,096 bytes.
            let data = (1...5).map { #""k\#($0)":"\#(String(repeating: "x", count: 1_000))""# }.joined(separator: ",")
            let publish =
                #"{"recipients":["eve"],"type":"order.shipped","title":"T","body":"B","data":{\#(data)},"push":{"send":true}}"#
            let refused = try await server.send("POST", "/v1/notifications", json: publish, token: key)
            #expect(refused.status == 400, "\(refused.text)")
            let error = try #require(refused.object["error"] as? [String: Any])
            #expect(error["code"] as? String == "push_too_large" && error["field"] as? String == "push")
            let message = try #require(error["message"] as? String)
            #expect(
                message.contains("APNs by ") && message.contains("FCM by ") && message.contains("Expo by "),
                "\(message)")
            #expect(message.contains("of 4096)"), "\(message)")

            // The same notification without push is fine: it only goes to the inbox.
            let inboxOnly = publish.replacingOccurrences(of: #""push":{"send":true}"#, with: #""push":{"send":false}"#)
            #expect(try await server.send("POST", "/v1/notifications", json: inboxOnly, token: key).status == 202)
            // A broadcast is refused the same way.
            let broadcast =
                #"{"audience":{"userIds":["eve"]},"type":"order.shipped","title":"T","body":"B","data":{\#(data)},"push":{"send":true}}"#
            let refusedBroadcast = try await server.send("POST", "/v1/broadcasts", json: broadcast, token: key)
            #expect(
                refusedBroadcast.status == 400 && refusedBroadcast.text.contains("push_too_large"),
                "\(refusedBroadcast.text)")
        }
    }

    @Test("bad push values and an unknown push key are a 400 naming the field")
    func refusedValues() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            for (push, field) in [
                (#"{"send":true,"interruptionLevel":"loud"}"#, "push.interruptionLevel"),
                (#"{"send":true,"relevanceScore":1.5}"#, "push.relevanceScore"),
                (#"{"send":true,"imageURL":"http://cdn.example.com/a.png"}"#, "push.imageURL"),
                (#"{"send":true,"interuptionLevel":"active"}"#, "push.interuptionLevel"),
                (#"{"send":true,"sound":{"name":"a.caf","critical":true,"volume":2}}"#, "push.sound.volume"),
                (#"{"send":true,"contentAvailable":true,"subtitle":"S"}"#, "push.subtitle"),
            ] {
                let json = #"{"recipients":["eve"],"type":"order.shipped","title":"T","body":"B","push":\#(push)}"#
                let response = try await server.send("POST", "/v1/notifications", json: json, token: key)
                #expect(response.status == 400, "\(push): \(response.text)")
                let error = response.object["error"] as? [String: Any]
                #expect(error?["field"] as? String == field, "\(push): \(response.text)")
                #expect((error?["message"] as? String)?.contains(field.dropFirst(5)) == true, "\(response.text)")
            }
        }
    }
}
