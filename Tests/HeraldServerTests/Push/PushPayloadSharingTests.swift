import Foundation
import HeraldModel
import HeraldStore
import Testing

@testable import HeraldServer

/// The worker builds one push per notification in a batch and gives each row its own badge.
@Suite("Push payloads shared within a batch")
struct PushPayloadSharingTests {
    private static func row(_ id: String, notification: InboxNotification, push: PushOptions?, badge: Int)
        -> ClaimedDelivery
    {
        ClaimedDelivery(
            id: id, claimToken: "claim", userID: "user-\(id)", deviceToken: "ab", provider: .apns, platform: .ios,
            environment: .production, attempts: 1, leaseExpiresAt: Date(), expiresAt: nil, notification: notification,
            push: push, badge: badge)
    }

    @Test("each row's payload is the one built for it alone: its notification, options and badge")
    func payloadsMatchOneByOneBuilds() {
        let shipped = InboxNotification(
            id: "n1", type: "order.shipped", category: "orders", title: "Your order shipped", body: "Arrives Friday",
            data: ["orderId": "42"], createdAt: Date(timeIntervalSince1970: 1_000))
        let sale = InboxNotification(
            id: "n2", type: "promo.sale", category: nil, title: String(repeating: "é", count: 200), body: "Today",
            createdAt: Date(timeIntervalSince1970: 2_000))
        let quiet = PushOptions(
            send: true, priority: .normal, ttlSeconds: 60, collapseId: "sale", sound: PushOptions.silentSound)
        let rows = [
            Self.row("d1", notification: shipped, push: nil, badge: 1),
            Self.row("d2", notification: sale, push: quiet, badge: 7),
            Self.row("d3", notification: shipped, push: nil, badge: 3),
            Self.row("d4", notification: sale, push: quiet, badge: 0),
        ]
        let payloads = DeliveryWorker.payloads(rows)
        #expect(payloads.count == rows.count)
        for (row, payload) in zip(rows, payloads) {
            #expect(payload == PushPayload(notification: row.notification, badge: row.badge, options: row.push))
        }
        #expect(payloads.map(\.badge) == [1, 7, 3, 0])
    }
}
