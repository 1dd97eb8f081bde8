import Foundation
import HeraldModel
import HeraldPush
import HeraldServerModel
import Testing

@Suite("Push payload contract")
struct PushPayloadTests {
    static let created = Date(timeIntervalSince1970: 1_800_000_000)

    static func notification(
        title: String = "Your order shipped", body: String = "Arrives Friday",
        data: [String: String] = ["orderId": "42"], deepLink: String? = "/orders/42", hasDetail: Bool = true
    ) -> InboxNotification {
        InboxNotification(
            id: "n-1", type: "order.shipped", category: "orders", title: title, body: body, data: data,
            deepLink: deepLink, hasDetail: hasDetail, createdAt: created)
    }

    static let options = PushOptions(
        send: true, priority: .normal, ttlSeconds: 3600, collapseId: "order-42", sound: "chime.caf")

    /// Encodes `value` and reads it back as a JSON object.
    static func object(_ value: some Encodable) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value))
        return try #require(json as? [String: Any])
    }

    @Test("PUSH-11 data carries the routing keys as strings and echoes the event kind")
    func routingKeys() {
        let data = PushData(notification: Self.notification(), eventKind: "order.shipped.webhook").dictionary
        #expect(
            data == [
                "notificationId": "n-1", "type": "order.shipped", "deepLink": "/orders/42", "hasDetail": "true",
                "eventKind": "order.shipped.webhook", "orderId": "42",
            ])
        let plain = PushData(notification: Self.notification(data: [:], deepLink: nil, hasDetail: false)).dictionary
        #expect(plain == ["notificationId": "n-1", "type": "order.shipped", "hasDetail": "false"])
        // Without an explicit kind, the publisher's own `eventKind` is echoed.
        let echoed = PushData(notification: Self.notification(data: ["eventKind": "task.assigned"]))
        #expect(echoed.eventKind == "task.assigned")
        #expect(echoed.dictionary["eventKind"] == "task.assigned")
    }

    @Test("PUSH-11 every provider shows the title and body cut to 150 characters")
    func truncatedEverywhere() throws {
        let long = String(repeating: "x", count: 300)
        let payload = PushPayload(notification: Self.notification(title: long, body: long))
        let cut = String(repeating: "x", count: 149) + "…"
        #expect(payload.apns.aps.alert == APNsPayload.Alert(title: cut, body: cut))
        let fcm = payload.fcm(token: "t", now: Self.created).message
        #expect(fcm.notification == FCMMessage.Notification(title: cut, body: cut))
        #expect(fcm.apns.payload.aps.alert?.title == cut)
        let expo = payload.expo(to: "ExponentPushToken[x]")
        #expect(expo.title == cut && expo.body == cut)
    }

    @Test("PUSH-12 every provider carries the same data")
    func sameDataEverywhere() throws {
        let payload = PushPayload(
            notification: Self.notification(data: ["orderId": "42", "eventKind": "k"]), badge: 3, options: Self.options)
        let expected = payload.data.dictionary
        var apns = try Self.object(payload.apns)
        apns["aps"] = nil
        #expect(apns as? [String: String] == expected, "APNs: the data at the top level beside aps")
        let fcm = try Self.object(payload.fcm(token: "t", now: Self.created))
        #expect((fcm["message"] as? [String: Any])?["data"] as? [String: String] == expected)
        let expo = try Self.object(payload.expo(to: "ExponentPushToken[x]"))
        #expect(expo["data"] as? [String: String] == expected)
        let preview = payload.preview(now: Self.created)
        #expect(preview.data == expected)
        #expect(preview.apns.data == expected && preview.fcm.message.data == expected && preview.expo.data == expected)
    }

    @Test("PUSH-12 publisher keys never override the routing keys; keys a provider reserves are left out")
    func reservedKeys() {
        let data = PushData(
            notificationId: "n-1", type: "order.shipped", hasDetail: false,
            publisherData: [
                "notificationId": "evil", "type": "evil", "deepLink": "https://evil.example", "hasDetail": "true",
                "eventKind": "evil", "aps": "x", "from": "x", "message_type": "x", "google.c.a": "x", "gcm.n": "x",
                "orderId": "42",
            ])
        #expect(
            data.dictionary == [
                "notificationId": "n-1", "type": "order.shipped", "hasDetail": "false", "orderId": "42",
            ])
        // An explicit event kind wins over the publisher's.
        let explicit = PushData(notification: Self.notification(data: ["eventKind": "publisher"]), eventKind: "server")
        #expect(explicit.dictionary["eventKind"] == "server")
        // FCM's prefixes in any case; near misses are the publisher's.
        for key in ["google", "GOOGLE.x", "Google_id", "gcm", "GCM.n", "gCm", "gcmé", "Google✓"] {
            #expect(PushData.isProviderReserved(key), "\(key)")
        }
        for key in [
            "googl", "gc", "xgoogle", "g-cm", "ġoogle", "collapse_keys", "Aps", "", "google\u{301}x", "GCM\u{200D}",
            "gcm\u{FE0F}",
        ] {
            #expect(!PushData.isProviderReserved(key), "\(key)")
        }
    }

    @Test("PUSH-12 a device's data reads back into the contract; without an id or a type it is not ours")
    func readBack() throws {
        let original = PushData(notification: Self.notification(), eventKind: "k")
        #expect(PushData(original.dictionary) == original)
        let decoded = try JSONDecoder().decode(PushData.self, from: try JSONEncoder().encode(original))
        #expect(decoded == original)
        #expect(decoded.publisherData == ["orderId": "42"])
        #expect(PushData(["type": "order.shipped"]) == nil)
        #expect(PushData(["notificationId": "n-1"]) == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PushData.self, from: Data(#"{"a":"b"}"#.utf8)) }
    }

    @Test("APNs: aps.alert, sound, the unseen count as badge, and the data at the top level")
    func apnsBody() throws {
        let payload = PushPayload(notification: Self.notification(), badge: 7, options: Self.options)
        let json = try Self.object(payload.apns)
        let aps = try #require(json["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "Your order shipped", "body": "Arrives Friday"])
        #expect(aps["sound"] as? String == "chime.caf")
        #expect(aps["badge"] as? Int == 7)
        #expect(json["notificationId"] as? String == "n-1")
        #expect(json["orderId"] as? String == "42")
        let decoded = try JSONDecoder().decode(APNsPayload.self, from: try JSONEncoder().encode(payload.apns))
        #expect(decoded == payload.apns)

        // Without options: the default sound, no badge when the count is unknown.
        let plain = try Self.object(PushPayload(notification: Self.notification()).apns)
        #expect((plain["aps"] as? [String: Any])?.keys.sorted() == ["alert", "sound"])
        #expect((plain["aps"] as? [String: Any])?["sound"] as? String == "default")
    }

    @Test("PUSH-07 a push plays the platform's default sound unless the publisher names one or asks for none")
    func soundByDefault() throws {
        for options in [nil, PushOptions(send: true), PushOptions(send: true, sound: "default")] {
            let payload = PushPayload(notification: Self.notification(), options: options)
            #expect(payload.sound == "default")
            #expect(payload.apns.aps.sound == "default")
            let fcm = payload.fcm(token: nil, now: Self.created).message
            #expect(fcm.android.notification?.sound == "default")
            #expect(fcm.apns.payload.aps.sound == "default")
            #expect(payload.expo(to: nil).sound == "default")
        }

        let silent = PushPayload(notification: Self.notification(), options: PushOptions(send: true, sound: "none"))
        #expect(silent.sound == nil)
        let aps = try #require(try Self.object(silent.apns)["aps"] as? [String: Any])
        #expect(aps.keys.sorted() == ["alert"], "a silent push has no sound key")
        let fcm = try #require(try Self.object(silent.fcm(token: nil, now: Self.created))["message"] as? [String: Any])
        #expect((fcm["android"] as? [String: Any])?["notification"] == nil)
        let overrideAPS = ((fcm["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(overrideAPS?["sound"] == nil)
        #expect(try Self.object(silent.expo(to: nil))["sound"] == nil)
    }

    @Test(
        "APNs headers, in order: a stable apns-id, alert push type, topic, priority 10 or 5, expiration from the TTL (or the delivery's fixed expiry), collapse id"
    )
    func apnsHeaders() {
        let now = Self.created
        func headers(_ payload: PushPayload, topic: String? = "t", id: String? = "D", expiresAt: Date? = nil)
            -> [String]
        {
            payload.apnsHeaders(topic: topic, id: id, now: now, expiresAt: expiresAt).map { "\($0.name)=\($0.value)" }
        }
        let normal = PushPayload(notification: Self.notification(), options: Self.options)
        #expect(
            headers(normal, topic: "com.example.app", id: "D-1") == [
                "apns-id=D-1", "apns-push-type=alert", "apns-topic=com.example.app", "apns-priority=5",
                "apns-expiration=1800003600", "apns-collapse-id=order-42",
            ])
        #expect(
            headers(normal, expiresAt: Date(timeIntervalSince1970: 1_800_000_100.9)).contains(
                "apns-expiration=1800000100"),
            "a delivery's fixed expiry, whole seconds")
        #expect(
            headers(normal, topic: nil, id: nil) == [
                "apns-push-type=alert", "apns-priority=5", "apns-expiration=1800003600", "apns-collapse-id=order-42",
            ], "FCM's APNs override: no id, no topic")
        let urgent = PushPayload(notification: Self.notification())
        #expect(
            headers(urgent, id: "D-2") == ["apns-id=D-2", "apns-push-type=alert", "apns-topic=t", "apns-priority=10"])
        let once = PushPayload(notification: Self.notification(), options: PushOptions(send: true, ttlSeconds: 0))
        #expect(headers(once).contains("apns-expiration=0"))
        #expect(
            headers(once, expiresAt: Date(timeIntervalSince1970: 1_800_000_100)).contains("apns-expiration=0"),
            "a TTL of 0 stays now or never")
    }

    @Test("FCM v1: message.notification, message.data, android priority, TTL and collapse key, apns override")
    func fcmBody() throws {
        let payload = PushPayload(notification: Self.notification(), badge: 2, options: Self.options)
        let json = try Self.object(payload.fcm(token: "fcm-token", now: Self.created))
        let message = try #require(json["message"] as? [String: Any])
        #expect(message["token"] as? String == "fcm-token")
        #expect(
            message["notification"] as? [String: String] == ["title": "Your order shipped", "body": "Arrives Friday"])
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["priority"] as? String == "NORMAL")
        #expect(android["ttl"] as? String == "3600s")
        #expect(android["collapse_key"] as? String == "order-42")
        #expect(android["notification"] as? [String: String] == ["sound": "chime.caf"])
        let apns = try #require(message["apns"] as? [String: Any])
        #expect((apns["headers"] as? [String: String])?["apns-priority"] == "5")
        #expect((apns["headers"] as? [String: String])?["apns-collapse-id"] == "order-42")
        let overrideAPS = (apns["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(overrideAPS?["badge"] as? Int == 2)
        #expect(payload.fcm(token: nil, now: Self.created).message.apns.payload.aps == payload.apns.aps)

        let urgent = try Self.object(PushPayload(notification: Self.notification()).fcm(token: nil, now: Self.created))
        let urgentMessage = try #require(urgent["message"] as? [String: Any])
        #expect(urgentMessage["token"] == nil, "a preview has no token")
        let urgentAndroid = try #require(urgentMessage["android"] as? [String: Any])
        #expect(urgentAndroid.keys.sorted() == ["notification", "priority"])
        #expect(urgentAndroid["priority"] as? String == "HIGH")
        #expect(urgentAndroid["notification"] as? [String: String] == ["sound": "default"])
    }

    @Test("Expo: to, title, body, data, sound, badge, priority and ttl")
    func expoBody() throws {
        let payload = PushPayload(notification: Self.notification(), badge: 4, options: Self.options)
        let json = try Self.object(payload.expo(to: "ExponentPushToken[abc]"))
        #expect(json["to"] as? String == "ExponentPushToken[abc]")
        #expect(json["title"] as? String == "Your order shipped")
        #expect(json["body"] as? String == "Arrives Friday")
        #expect(json["sound"] as? String == "chime.caf")
        #expect(json["badge"] as? Int == 4)
        #expect(json["priority"] as? String == "normal")
        #expect(json["ttl"] as? Int == 3600)
        #expect(json["data"] as? [String: String] == payload.data.dictionary)
        let plain = try Self.object(PushPayload(notification: Self.notification()).expo(to: nil))
        #expect(plain.keys.sorted() == ["body", "data", "priority", "sound", "title"])
        #expect(plain["sound"] as? String == "default")
        #expect(plain["priority"] as? String == "high")
    }

    @Test("the preview round-trips through JSON")
    func previewCoding() throws {
        let preview = PushPayload(notification: Self.notification(), badge: 1, options: Self.options)
            .preview(now: Self.created)
        let decoded = try JSONDecoder().decode(PushPreview.self, from: try JSONEncoder().encode(preview))
        #expect(decoded == preview)
    }
}
