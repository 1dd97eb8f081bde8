import FoundationEssentials
import HeraldModel
import HeraldServerModel
import HeraldStore

/// The outbox of `scripts/bench-push.sh`: one production APNs device for each of `devices`
/// users, and one notification with push published to all of them, so the outbox holds one
/// queued delivery per device for `herald serve` to send.
struct BenchPushSeed {
    let store: any HeraldStore

    /// The device token of bench device `index`: 64 hex digits, as `bench-push-aioapns.py`
    /// derives them too.
    static func deviceToken(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return String(repeating: "0", count: max(0, 64 - hex.count)) + hex
    }

    static func userID(_ index: Int) -> String { "bench-push-user-\(index)" }

    /// Registers the devices, then publishes 1,000 recipients per transaction; answers the
    /// number of deliveries queued.
    func seed(devices: Int) async throws -> Int {
        let now = Date()
        for index in 0..<devices {
            _ = try await store.upsertDevice(
                userID: Self.userID(index),
                DeviceRegistration(token: Self.deviceToken(index), provider: .apns, platform: .ios), at: now)
        }
        var published = 0
        while published < devices {
            let batch = (published..<min(devices, published + 1_000)).map { index in
                NewNotification(
                    id: TimeOrderedID.make(), userID: Self.userID(index), type: "order.shipped",
                    category: Catalog.standard.category(forType: "order.shipped"), hidden: false,
                    title: "Your order shipped", body: "It arrives on Friday.", data: ["orderId": String(index)],
                    deepLink: nil, detail: nil, push: PushOptions(send: true), createdAt: now)
            }
            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
            published += batch.count
        }
        return published
    }
}
