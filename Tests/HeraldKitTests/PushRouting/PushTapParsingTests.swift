import Foundation
import HeraldKit
import HeraldModel
import HeraldServerModel
import Testing

@Suite("Push tap: reading the payload")
@MainActor struct PushTapParsingTests {
    /// The `data` contract as the server sends it for an order push.
    static let contract: [String: String] = [
        "notificationId": "n-42", "type": "order.shipped", "deepLink": "myapp://orders/o-7", "hasDetail": "true",
        "eventKind": "order.shipped.v2", "orderId": "o-7", "carrier": "PostNL",
    ]

    static let expected = PushTap(
        notificationId: "n-42", type: "order.shipped", deepLink: "myapp://orders/o-7", hasDetail: true,
        eventKind: "order.shipped.v2", data: contract)

    @Test("PUSH-11 the parser reads every routing key, keeps the publisher data and echoes eventKind")
    func readsEveryKey() throws {
        let tap = try #require(PushTap(data: Self.contract))

        #expect(tap.notificationId == "n-42")
        #expect(tap.type == "order.shipped")
        #expect(tap.deepLink == "myapp://orders/o-7")
        #expect(tap.hasDetail)
        #expect(tap.eventKind == "order.shipped.v2")
        #expect(tap.data["orderId"] == "o-7")
        #expect(tap.data["carrier"] == "PostNL")
        #expect(tap == Self.expected)
    }

    @Test("PUSH-11 the cut title and body of the alert play no part in routing")
    func alertTextIsNotRouting() throws {
        let long = String(repeating: "Your parcel is on its way. ", count: 12)
        let title = PushText.truncate(long)
        var userInfo: [AnyHashable: Any] = ["aps": ["alert": ["title": title, "body": title], "sound": "default"]]
        for (key, value) in Self.contract { userInfo[key] = value }

        #expect(title.count == 150)
        #expect(PushTap(payload: userInfo) == Self.expected)
    }

    @Test("PUSH-11 optional keys may be missing or empty; hasDetail is true only for \"true\"")
    func optionalKeys() throws {
        let tap = try #require(
            PushTap(data: ["notificationId": "n-1", "type": "general", "deepLink": "", "hasDetail": "yes"]))

        #expect(tap.deepLink == nil)
        #expect(tap.eventKind == nil)
        #expect(!tap.hasDetail)
    }

    @Test("PUSH-12 APNs, FCM and Expo payloads read to the same tap")
    func everyProviderReadsTheSame() throws {
        var apns: [AnyHashable: Any] = ["aps": ["alert": ["title": "Shipped", "body": "On its way"], "badge": 3]]
        for (key, value) in Self.contract { apns[key] = value }
        let fcm: [String: String] = Self.contract
        let expoObject: [AnyHashable: Any] = ["title": "Shipped", "body": "On its way", "data": Self.contract]
        let json = String(decoding: try JSONEncoder().encode(Self.contract), as: UTF8.self)
        let expoString: [AnyHashable: Any] = ["title": "Shipped", "data": json]

        #expect(PushTap(payload: apns) == Self.expected)
        #expect(PushTap(payload: fcm) == Self.expected)
        #expect(PushTap(payload: expoObject) == Self.expected)
        #expect(PushTap(payload: expoString) == Self.expected)
    }

    @Test("A push without the Herald contract is not read as a tap")
    func foreignPushes() {
        #expect(PushTap(payload: ["aps": ["alert": "Hello"]]) == nil)
        #expect(PushTap(payload: ["type": "order.shipped"]) == nil)
        #expect(PushTap(payload: ["notificationId": "n-1"]) == nil)
        #expect(PushTap(payload: ["data": "not json"]) == nil)
        #expect(PushTap(payload: ["data": ["notificationId": "n-1", "type": ""]]) == nil)
    }
}
