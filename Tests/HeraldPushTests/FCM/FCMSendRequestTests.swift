import Foundation
import HeraldModel
import HeraldPush
import HeraldServerModel
import Testing

@Suite("FCM send request")
struct FCMSendRequestTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    let configuration = FCMConfiguration(baseURL: "https://fcm.example.test/", projectID: "herald-test")

    func make(_ payload: PushPayload, expiresAt: Date? = nil) throws -> (HTTP2Request, [String: Any]) {
        let request = try FCMSendRequest.make(
            deviceToken: "fcm-token-1", payload: payload, expiresAt: expiresAt, accessToken: "ya29.abc",
            configuration: configuration, now: now)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(root.keys.sorted() == ["message"])
        return (request, try #require(root["message"] as? [String: Any]))
    }

    @Test("POST to the project's messages:send with the bearer token and the whole message")
    func request() throws {
        let options = PushOptions(
            send: true, priority: .normal, ttlSeconds: 600, collapseId: "order-42", sound: "chime")
        let (request, message) = try make(APNsFixtures.payload(options: options))
        #expect(request.method == "POST")
        #expect(request.url == "https://fcm.example.test/v1/projects/herald-test/messages:send")
        #expect(request.header("authorization") == "Bearer ya29.abc")
        #expect(request.header("content-type")?.hasPrefix("application/json") == true)
        #expect(message["token"] as? String == "fcm-token-1")
        let notification = message["notification"] as? [String: String]
        #expect(notification == ["title": "Shipped", "body": "Your order is on its way"])
        let data = try #require(message["data"] as? [String: String])
        #expect(data["notificationId"] == "n-1" && data["type"] == "order.shipped" && data["orderId"] == "42")
        #expect(data["deepLink"] == "app://orders/42" && data["hasDetail"] == "false")
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["priority"] as? String == "NORMAL" && android["ttl"] as? String == "600s")
        #expect(android["collapse_key"] as? String == "order-42")
        #expect((android["notification"] as? [String: String]) == ["sound": "chime"])
        let apns = try #require(message["apns"] as? [String: Any])
        let headers = try #require(apns["headers"] as? [String: String])
        #expect(headers["apns-priority"] == "5" && headers["apns-collapse-id"] == "order-42")
        #expect(headers["apns-expiration"] == "1750000600")
        let aps = (apns["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["badge"] as? Int == 3 && aps?["sound"] as? String == "chime")
    }

    @Test("the TTL counts down to the delivery's expiry, so a retry does not stretch it")
    func ttlFromExpiry() throws {
        let payload = APNsFixtures.payload(options: PushOptions(send: true, ttlSeconds: 600))
        let (_, message) = try make(payload, expiresAt: now.addingTimeInterval(250.7))
        #expect((message["android"] as? [String: Any])?["ttl"] as? String == "250s")
        let headers = (message["apns"] as? [String: Any])?["headers"] as? [String: String]
        #expect(headers?["apns-expiration"] == "1750000250")
        let (_, late) = try make(payload, expiresAt: now.addingTimeInterval(-5))
        #expect((late["android"] as? [String: Any])?["ttl"] as? String == "0s")
    }

    @Test("no TTL leaves ttl and apns-expiration out; a TTL of 0 is now or never")
    func ttlAbsentOrZero() throws {
        let (_, plain) = try make(APNsFixtures.payload())
        #expect((plain["android"] as? [String: Any])?["ttl"] == nil)
        #expect(((plain["apns"] as? [String: Any])?["headers"] as? [String: String])?["apns-expiration"] == nil)
        let zero = APNsFixtures.payload(options: PushOptions(send: true, ttlSeconds: 0))
        let (_, once) = try make(zero, expiresAt: now)
        #expect((once["android"] as? [String: Any])?["ttl"] as? String == "0s")
        #expect(((once["apns"] as? [String: Any])?["headers"] as? [String: String])?["apns-expiration"] == "0")
    }

    @Test("data, title and body over 4096 bytes are refused; exactly 4096 passes")
    func sizeLimit() throws {
        let base = APNsFixtures.payload(data: [:])
        let used = base.data.dictionary.reduce(base.title.utf8.count + base.body.utf8.count) {
            $0 + $1.key.utf8.count + $1.value.utf8.count
        }
        let fits = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_096 - used - 3)])
        _ = try make(fits)
        let over = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_096 - used - 2)])
        let refusal = #expect(throws: FCMSendRequest.Refusal.self) { try make(over) }
        #expect(refusal?.reason == "MessageTooBig")
    }
}
