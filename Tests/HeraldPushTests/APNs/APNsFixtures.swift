import Foundation
import HeraldCrypto
import HeraldModel
import HeraldPush
import HeraldServerModel

/// Shared inputs of the APNs tests.
enum APNsFixtures {
    static let key = try! SigningKey.generateP256()
    /// A device token as iOS reports it: 32 bytes in hex.
    static let deviceToken = String(repeating: "a1b2c3d4", count: 8)
    static let deliveryID = "0f8fad5b-d9cb-469f-a165-70867728950e"
    static let configuration = APNsConfiguration(baseURL: FakeAPNs.baseURL + "/", topic: FakeAPNs.topic)

    static func notification(data: [String: String] = ["orderId": "42"]) -> InboxNotification {
        InboxNotification(
            id: "n-1", type: "order.shipped", category: "orders", title: "Shipped", body: "Your order is on its way",
            data: data, deepLink: "app://orders/42", createdAt: Date(timeIntervalSince1970: 1_750_000_000))
    }

    static func payload(data: [String: String] = ["orderId": "42"], options: PushOptions? = nil) -> PushPayload {
        PushPayload(notification: notification(data: data), badge: 3, options: options)
    }

    static func providerToken(clock: TestClock) throws -> APNsProviderToken {
        try APNsProviderToken(key: key, keyID: FakeAPNs.keyID, teamID: FakeAPNs.teamID, clock: clock.closure)
    }

    /// A client against a fresh ``FakeAPNs``.
    static func client(clock: TestClock) throws -> (APNsClient, FakeAPNs) {
        let fake = FakeAPNs(publicKey: try key.publicKey(), clock: clock)
        let client = APNsClient(
            configuration: configuration, providerToken: try providerToken(clock: clock), exchange: fake.exchange)
        return (client, fake)
    }
}
