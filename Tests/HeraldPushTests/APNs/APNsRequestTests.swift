import Foundation
import HeraldCrypto
import HeraldModel
import HeraldPush
import HeraldServerModel
import Testing

@Suite("APNs request")
struct APNsRequestTests {
    let clock = TestClock()

    func make(
        payload: PushPayload = APNsFixtures.payload(), deviceToken: String = APNsFixtures.deviceToken,
        expiresAt: Date? = nil
    ) throws(APNsRequest.Refusal) -> HTTP2Request {
        try APNsRequest.make(
            deviceToken: deviceToken, deliveryID: APNsFixtures.deliveryID, payload: payload, expiresAt: expiresAt,
            providerToken: "jwt", configuration: APNsFixtures.configuration, now: clock.now)
    }

    /// The reason the request for `payload` to `deviceToken` is refused for, or nil when it builds.
    func refusal(payload: PushPayload = APNsFixtures.payload(), deviceToken: String = APNsFixtures.deviceToken)
        -> String?
    {
        do {
            _ = try make(payload: payload, deviceToken: deviceToken)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("POST /3/device/<token> on the base URL with every header of the contract, in order")
    func headers() throws {
        let options = PushOptions(send: true, priority: .normal, ttlSeconds: 600, collapseId: "order-42")
        let request = try make(payload: APNsFixtures.payload(options: options))
        #expect(request.method == "POST")
        #expect(request.url == "https://apns.example.test/3/device/\(APNsFixtures.deviceToken)")
        let expected: [(String, String)] = [
            ("authorization", "bearer jwt"), ("content-type", "application/json"),
            ("apns-id", APNsFixtures.deliveryID), ("apns-push-type", "alert"), ("apns-topic", FakeAPNs.topic),
            ("apns-priority", "5"), ("apns-expiration", "1750000600"), ("apns-collapse-id", "order-42"),
        ]
        #expect(request.headers.map(\.name) == expected.map(\.0))
        #expect(request.headers.map(\.value) == expected.map(\.1))
    }

    @Test("high priority is 10; no TTL means no apns-expiration and no collapse id means none")
    func defaults() throws {
        let request = try make()
        #expect(request.header("apns-priority") == "10")
        #expect(request.header("apns-expiration") == nil)
        #expect(request.header("apns-collapse-id") == nil)
    }

    @Test("a TTL of 0 asks for one attempt: apns-expiration 0")
    func ttlZero() throws {
        let request = try make(payload: APNsFixtures.payload(options: PushOptions(send: true, ttlSeconds: 0)))
        #expect(request.header("apns-expiration") == "0")
    }

    @Test("apns-expiration is the delivery's fixed expiry, so a retry does not stretch it")
    func expirationFromDelivery() throws {
        let payload = APNsFixtures.payload(options: PushOptions(send: true, ttlSeconds: 600))
        let request = try make(payload: payload, expiresAt: Date(timeIntervalSince1970: 1_749_999_999.9))
        #expect(request.header("apns-expiration") == "1749999999")
    }

    @Test("the body is the PushPayload's APNs JSON: aps beside the data at the top level")
    func body() throws {
        let payload = APNsFixtures.payload(data: ["orderId": "42", "note": "a \"quoted\"/ü line\n"])
        let request = try make(payload: payload)
        #expect(try JSONDecoder().decode(APNsPayload.self, from: Data(request.body)) == payload.apns)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(object["orderId"] as? String == "42")
        let aps = try #require(object["aps"] as? [String: Any])
        #expect(aps["badge"] as? Int == 3)
        #expect(aps["sound"] as? String == "default")
    }

    @Test("the body's data: the routing keys, the publisher's keys, and the image URL over a publisher's imageURL")
    func bodyData() throws {
        let data = ["orderId": "42", "eventKind": "shipped", "imageURL": "https://publisher.example/mine.png"]
        for imageURL in [nil, "https://cdn.example/box.png"] {
            let payload = APNsFixtures.payload(data: data, options: PushOptions(send: true, imageURL: imageURL))
            let request = try make(payload: payload)
            #expect(try JSONDecoder().decode(APNsPayload.self, from: Data(request.body)) == payload.apns)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            #expect(
                Set(object.keys) == [
                    "aps", "notificationId", "type", "deepLink", "hasDetail", "eventKind", "orderId", "imageURL",
                ])
            #expect(object["imageURL"] as? String == imageURL ?? "https://publisher.example/mine.png")
            #expect(object["deepLink"] as? String == "app://orders/42" && object["eventKind"] as? String == "shipped")
            #expect(object["hasDetail"] as? String == "false" && object["notificationId"] as? String == "n-1")
            // Each key once (a parser keeps one of two equal keys, so the object alone cannot tell).
            let text = String(decoding: request.body, as: UTF8.self)
            for key in ["imageURL", "eventKind", "orderId", "notificationId", "deepLink"] {
                #expect(text.components(separatedBy: "\"\(key)\":").count == 2, "\(key) in \(text)")
            }
        }
    }

    @Test("a silent push has no sound key")
    func silent() throws {
        let request = try make(payload: APNsFixtures.payload(options: PushOptions(send: true, sound: "none")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect((object["aps"] as? [String: Any])?["sound"] == nil)
    }

    @Test("a body of exactly 4096 bytes goes; 4097 bytes is PayloadTooLarge before sending")
    func payloadLimit() throws {
        let base = try make(payload: APNsFixtures.payload(data: ["pad": ""])).body.count
        let fits = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_096 - base)])
        #expect(try make(payload: fits).body.count == 4_096)
        let over = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_097 - base)])
        #expect(refusal(payload: over) == "PayloadTooLarge")
    }

    @Test("a collapse id of 64 bytes goes; 65 is BadCollapseId")
    func collapseLimit() throws {
        let fits = PushOptions(send: true, collapseId: String(repeating: "c", count: 64))
        #expect(try make(payload: APNsFixtures.payload(options: fits)).header("apns-collapse-id")?.count == 64)
        let over = PushOptions(send: true, collapseId: String(repeating: "c", count: 65))
        #expect(refusal(payload: APNsFixtures.payload(options: over)) == "BadCollapseId")
    }

    @Test("a device token that is not hex never reaches the URL", arguments: ["", "abc/def", "zz", "ab cd", "ab%2F"])
    func badToken(token: String) {
        #expect(refusal(deviceToken: token) == "BadDeviceToken")
    }

    @Test("the sandbox and Apple's gateways")
    func gateways() {
        #expect(APNsConfiguration.productionURL == "https://api.push.apple.com")
        #expect(APNsConfiguration.developmentURL == "https://api.sandbox.push.apple.com")
        #expect(APNsConfiguration(baseURL: "http://127.0.0.1:8090/", topic: "t").baseURL == "http://127.0.0.1:8090")
    }
}
