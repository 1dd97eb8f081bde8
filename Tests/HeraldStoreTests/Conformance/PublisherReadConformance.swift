import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// What the console reads across users (``PublisherStatements`` and the app config's version):
/// checked the same way against each store (see ``ConformanceCheck``). Each check gets a fresh store.
enum PublisherReadConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case notificationFilters =
        "notifications filter by user, whole-segment type prefix, delivery status and creation time, newest first"
    case notificationPages = "notification pages follow beforeSeq with hasMore, and each row tallies its deliveries"
    case deliveryBuckets = "deliveries are counted per time bucket, provider and status since a given instant"
    case deviceTallies = "devices are counted per provider, active and inactive, and known users once each"
    case appConfigVersions = "the app config's version starts at 0, grows with each write, and a stale version loses"
    case userDeliveries = "a user's deliveries come from their newest notifications only"
    case providerStatus =
        "each outcome keeps the provider's HTTP status of its last attempt, batched sends too; none before an answer"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .notificationFilters:
            try await store.addDevice("apns-1", user: "u1")
            try await store.publishPushed(["n1"], user: "u1", type: "order.shipped", createdAt: at(0))
            try await store.publishPushed(["n2"], user: "u2", type: "order_x.shipped", createdAt: at(10))
            try await store.publishPushed(["n3"], user: "u1", type: "order", createdAt: at(20))
            try await store.publishPushed(["n4"], user: "u2", type: "promo.sale", createdAt: at(30))
            func ids(_ query: NotificationQuery) async throws -> [String] {
                try await store.notifications(query).items.map(\.id)
            }
            #expect(try await ids(NotificationQuery()) == ["n4", "n3", "n2", "n1"])
            #expect(try await ids(NotificationQuery(userID: "u1")) == ["n3", "n1"])
            // `order` is a whole segment: it takes `order` and `order.shipped`, never `order_x.shipped`.
            #expect(try await ids(NotificationQuery(type: "order")) == ["n3", "n1"])
            #expect(try await ids(NotificationQuery(type: "order.shipped")) == ["n1"])
            #expect(try await ids(NotificationQuery(type: "order_")).isEmpty, "no LIKE: `_` means itself")
            // u1 has a device, so its rows are queued; u2 has none, so its rows are skipped.
            #expect(try await ids(NotificationQuery(status: .queued)) == ["n3", "n1"])
            #expect(try await ids(NotificationQuery(status: .skipped)) == ["n4", "n2"])
            #expect(try await ids(NotificationQuery(status: .sent)).isEmpty)
            #expect(try await ids(NotificationQuery(createdFrom: at(10), createdBefore: at(30))) == ["n3", "n2"])
            #expect(try await ids(NotificationQuery(userID: "u2", type: "promo", createdFrom: at(30))) == ["n4"])
        case .notificationPages:
            try await store.addDevice("apns-1")
            try await store.addDevice("fcm-1", android: true)
            try await store.publishPushed((1...5).map { "n\($0)" })
            let first = try await store.notifications(NotificationQuery(limit: 2))
            #expect(first.items.map(\.id).count == 2 && first.hasMore)
            let second = try await store.notifications(NotificationQuery(beforeSeq: first.lastSeq, limit: 2))
            let third = try await store.notifications(NotificationQuery(beforeSeq: second.lastSeq, limit: 2))
            #expect(second.hasMore && !third.hasMore && third.items.count == 1)
            let all = (first.items + second.items + third.items)
            #expect(Set(all.map(\.id)) == Set((1...5).map { "n\($0)" }))
            #expect(all.map(\.seq) == all.map(\.seq).sorted(by: >), "newest first")
            let row = try #require(all.first)
            #expect(row.deliveries.queued == 2 && row.deliveries.total == 2)
            #expect(row.userID == "u1" && row.type == "order.shipped" && row.category == "orders")
            #expect(row.title == "Title \(row.id)" && row.readAt == nil && row.deletedAt == nil)
            // One delivery sent: the tally moves with it.
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            let sent = try #require(claimed.first { $0.notification.id == row.id && $0.deviceToken == "apns-1" })
            #expect(
                try await store.completeDelivery(
                    id: sent.id, claimToken: sent.claimToken, outcome: .sent(providerMessageID: nil), now: at(2)))
            let after = try #require(
                try await store.notifications(NotificationQuery(limit: 1)).items.first { $0.id == row.id })
            #expect(after.deliveries.sent == 1 && after.deliveries.sending == 1 && after.deliveries.total == 2)
        case .deliveryBuckets:
            try await store.addDevice("apns-1", user: "u1")
            try await store.addDevice("fcm-1", user: "u1", android: true)
            try await store.publishPushed(["old"], user: "u1", createdAt: at(-10))
            try await store.publishPushed(["a"], user: "u1", createdAt: at(5))
            try await store.publishPushed(["b"], user: "u2", createdAt: at(59))
            try await store.publishPushed(["c"], user: "u1", createdAt: at(61))
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(70), lease: 30)
            for claim in claimed where claim.notification.id == "a" && claim.deviceToken == "apns-1" {
                #expect(
                    try await store.completeDelivery(
                        id: claim.id, claimToken: claim.claimToken, outcome: .failed(reason: "BadDeviceToken"),
                        now: at(71)))
            }
            let buckets = try await store.deliveryBuckets(since: at(0), bucketSeconds: 60)
            func count(_ second: Double, _ provider: PushProvider?, _ status: DeliveryStatus) -> Int? {
                buckets.first { $0.start == at(second) && $0.provider == provider && $0.status == status }?.count
            }
            // Bucket [0, 60): a's two rows (one failed, one claimed) and b's no_device row; [60, 120): c's two.
            #expect(count(0, .apns, .failed) == 1 && count(0, .fcm, .sending) == 1)
            #expect(count(0, nil, .skipped) == 1)
            #expect(count(60, .apns, .sending) == 1 && count(60, .fcm, .sending) == 1)
            #expect(buckets.map(\.count).reduce(0, +) == 5, "the row created before `since` is left out")
            #expect(Set(buckets.map(\.start)) == [at(0), at(60)])
        case .deviceTallies:
            try await store.addDevice("apns-1", user: "u1")
            try await store.addDevice("apns-2", user: "u2")
            try await store.addDevice("fcm-1", user: "u2", android: true)
            _ = try await store.upsertDevice(
                userID: "u3", DeviceRegistration(token: "ExponentPushToken[x]", provider: .expo, platform: .ios),
                at: at(-60))
            try await store.publishPushed(["n1"], user: "u2")
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            let fcm = try #require(claimed.first { $0.deviceToken == "fcm-1" })
            #expect(
                try await store.completeDelivery(
                    id: fcm.id, claimToken: fcm.claimToken, outcome: .pruned(reason: "UNREGISTERED"), now: at(2)))
            let tallies = try await store.deviceTallies()
            #expect(tallies.map(\.provider) == PushProvider.allCases, "every provider, none left out")
            #expect(tallies.first { $0.provider == .apns } == DeviceTally(provider: .apns, active: 2, inactive: 0))
            #expect(tallies.first { $0.provider == .fcm } == DeviceTally(provider: .fcm, active: 0, inactive: 1))
            #expect(tallies.first { $0.provider == .expo } == DeviceTally(provider: .expo, active: 1, inactive: 0))
            #expect(try await store.knownUserCount() == 3)
        case .appConfigVersions:
            let empty = try await store.appConfigRecord()
            #expect(empty.version == 0 && empty.document == nil && empty.updatedAt == nil)
            let first = AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders"]))
            let second = AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: ["/promos"]))
            #expect(try await store.setAppConfig(first, at: at(1), ifVersion: 1) == nil, "no version 1 yet")
            let created = try #require(try await store.setAppConfig(first, at: at(1), ifVersion: 0))
            #expect(created == AppConfigRecord(document: first, version: 1, updatedAt: at(1)))
            #expect(try await store.setAppConfig(second, at: at(2), ifVersion: 0) == nil, "0 means none yet")
            let updated = try #require(try await store.setAppConfig(second, at: at(2), ifVersion: 1))
            #expect(updated.version == 2 && updated.document == second)
            #expect(try await store.setAppConfig(first, at: at(3), ifVersion: 1) == nil, "a stale version loses")
            #expect(try await store.appConfigRecord() == updated, "and changes nothing")
            let forced = try #require(try await store.setAppConfig(first, at: at(4), ifVersion: nil))
            #expect(forced.version == 3 && forced.document == first && forced.updatedAt == at(4))
        case .userDeliveries:
            try await store.addDevice("apns-1", user: "u1")
            try await store.addDevice("apns-9", user: "u9")
            try await store.publishPushed(["n1"], user: "u1", createdAt: at(0))
            try await store.publishPushed(["n2"], user: "u1", createdAt: at(1))
            try await store.publishPushed(["n3"], user: "u1", createdAt: at(2))
            try await store.publishPushed(["other"], user: "u9", createdAt: at(3))
            let recent = try await store.deliveries(userID: "u1", notificationLimit: 2)
            #expect(recent.map(\.notificationID) == ["n3", "n2"])
            #expect(recent.allSatisfy { $0.userID == "u1" && $0.deviceToken == "apns-1" && $0.status == .queued })
            #expect(try await store.deliveries(userID: "u1", notificationLimit: 10).count == 3)
            #expect(try await store.deliveries(userID: "nobody", notificationLimit: 10).isEmpty)
        case .providerStatus:
            for token in ["a", "b", "c", "d", "e"] { try await store.addDevice("apns-\(token)") }
            try await store.publishPushed(["n1"])
            let claims = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            let byToken = Dictionary(uniqueKeysWithValues: claims.map { ($0.deviceToken, $0) })
            func completion(_ token: String, _ outcome: DeliveryOutcome, _ status: Int?) throws -> DeliveryCompletion {
                let claim = try #require(byToken["apns-\(token)"])
                return DeliveryCompletion(
                    id: claim.id, claimToken: claim.claimToken, outcome: outcome, providerStatus: status)
            }
            // Two sends (recorded in one statement), a retry, a prune and a transport failure.
            let held = try await store.completeDeliveries(
                [
                    try completion("a", .sent(providerMessageID: "m-a"), 200),
                    try completion("b", .sent(providerMessageID: nil), 200),
                    try completion("c", .retry(at: at(60), reason: "TooManyRequests"), 429),
                    try completion("d", .pruned(reason: "Unregistered"), 410),
                    try completion("e", .failed(reason: "Transport: connectionRefused"), nil),
                ], now: at(2))
            #expect(held == [true, true, true, true, true])
            func statuses() async throws -> [String: Int?] {
                Dictionary(
                    uniqueKeysWithValues: try await store.deliveries(notificationID: "n1").map {
                        ($0.deviceToken ?? "", $0.providerStatus)
                    })
            }
            #expect(
                try await statuses() == [
                    "apns-a": 200, "apns-b": 200, "apns-c": 429, "apns-d": 410, "apns-e": Int?.none,
                ])
            // The retry's next attempt is answered: its status is the new one.
            let again = try #require(try await store.claimDueDeliveries(limit: 10, now: at(60), lease: 30).first)
            #expect(
                try await store.completeDeliveries(
                    [
                        DeliveryCompletion(
                            id: again.id, claimToken: again.claimToken, outcome: .sent(providerMessageID: nil),
                            providerStatus: 200)
                    ], now: at(61)) == [true])
            #expect(try await statuses()["apns-c"] == 200)
        }
    }
}

@Suite("Publisher reads conformance: SQLite")
struct SQLitePublisherReadConformanceTests {
    @Test("SQLite store", arguments: PublisherReadConformanceCheck.allCases)
    func conforms(_ check: PublisherReadConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Publisher reads conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresPublisherReadConformanceTests {
    @Test("PostgreSQL store", arguments: PublisherReadConformanceCheck.allCases)
    func conforms(_ check: PublisherReadConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
