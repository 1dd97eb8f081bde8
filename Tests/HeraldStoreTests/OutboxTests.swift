import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

@Suite("Delivery outbox at publish")
struct OutboxTests {
    @Test("a push goes out as one queued row per active device, due at once, with the TTL expiry")
    func queuedPerDevice() async throws {
        try await withStore { (store) async throws in
            try await store.addDevice("phone")
            try await store.addDevice("tablet", android: true)
            try await store.addDevice("old")
            try store.write { db in try db.execute("UPDATE devices SET active = 0 WHERE token = 'old'") }
            try await store.addDevice("other", user: "u2")
            try await store.publishPushed(["n1"], push: PushOptions(send: true, ttlSeconds: 600))

            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .queued), Summary(token: "tablet", status: .queued),
                ], "inactive devices and other users' devices get no row")
            #expect(rows.allSatisfy { $0.attempts == 0 && $0.nextAttemptAt == t0 && $0.expiresAt == at(600) })
            #expect(rows.allSatisfy { $0.userID == "u1" && $0.createdAt == t0 && $0.updatedAt == t0 })
            #expect(Set(rows.map(\.id)).count == 2)
            let tablet = try #require(rows.first { $0.deviceToken == "tablet" })
            #expect(tablet.provider == .fcm && tablet.platform == .android && tablet.environment == .production)
        }
    }

    @Test(
        "each push-policy rule skips every device with its reason",
        arguments: [
            ("global_off", "order.shipped", "orders"), ("os_denied", "order.shipped", "orders"),
            ("category_off", "promo.flash", "promotions"), ("type_disabled", "order.shipped", "orders"),
        ])
    func skipReasons(reason: String, type: String, category: String) async throws {
        try await withStore { (store) async throws in
            try await store.addDevice("phone")
            try await store.addDevice("tablet")
            try await store.setPreferences { preferences in
                switch reason {
                case "global_off": preferences.globalEnabled = false
                case "os_denied": preferences.osPermissionGranted = false
                case "category_off": preferences.categories["promotions"] = false
                default: preferences.disabledTypes = ["order"]
                }
            }
            try await store.publishPushed(["n1"], type: type, category: category)
            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .skipped, reason: reason),
                    Summary(token: "tablet", status: .skipped, reason: reason),
                ])
            #expect(rows.allSatisfy { $0.nextAttemptAt == nil })
        }
    }

    @Test("a recipient without an active device gets one skipped no_device row")
    func noDevice() async throws {
        try await withStore { (store) async throws in
            try await store.addDevice("old")
            try store.write { db in try db.execute("UPDATE devices SET active = 0") }
            try await store.setPreferences { $0.globalEnabled = false }
            try await store.publishPushed(["n1"])
            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [Summary(token: nil, status: .skipped, reason: "no_device")])
            #expect(rows.first?.provider == nil && rows.first?.platform == nil && rows.first?.environment == nil)
        }
    }

    @Test("the delivery rows share the publish transaction: a publish failing after them writes nothing")
    func sameTransaction() async throws {
        try await withStore { (store) async throws in
            try await store.addDevice("phone")
            // The counters are written after the delivery rows; make that write fail.
            try store.write { db in
                try db.executeUncached(
                    "CREATE TRIGGER refuse BEFORE INSERT ON user_counters BEGIN SELECT RAISE(ABORT, 'refused'); END")
            }
            await #expect(throws: StoreError.self) { try await store.publishPushed(["n1"]) }
            #expect(try await store.deliveries(notificationID: "n1").isEmpty)
            #expect(try await store.publishedNotification(id: "n1") == nil)
            let total = try store.read { db in try db.queryOne("SELECT COUNT(*) FROM deliveries") { $0.int(0) } }
            #expect(total == 0)
        }
    }

    @Test("a 1,000-recipient publish with push writes every delivery row (timings printed)")
    func bulkPublish() async throws {
        try await withStore { (store) async throws in
            for index in 0..<1_000 {
                try await store.addDevice("tok-\(index)", user: "user-\(index)")
            }
            for index in stride(from: 0, to: 1_000, by: 10) {
                try await store.setPreferences("user-\(index)") { $0.globalEnabled = false }
            }
            func batch(_ prefix: String, push: PushOptions?) -> [NewNotification] {
                (0..<1_000).map { note("\(prefix)-\($0)", user: "user-\($0)", push: push) }
            }
            let clock = ContinuousClock()
            var withoutPush: [Duration] = []
            var withPush: [Duration] = []
            for round in 0..<5 {
                let plain = batch("plain-\(round)", push: nil)
                withoutPush.append(
                    try await clock.measure { _ = try await store.publish(plain, catalog: .standard, idempotency: nil) }
                )
                let pushing = batch("push-\(round)", push: pushed)
                withPush.append(
                    try await clock.measure {
                        _ = try await store.publish(pushing, catalog: .standard, idempotency: nil)
                    })
            }
            print(
                "1,000-recipient publish, median of 5: without push \(withoutPush.sorted()[2]), with push \(withPush.sorted()[2])"
            )
            #expect(
                try await store.deliverySummary("push-0-0") == [
                    Summary(token: "tok-0", status: .skipped, reason: "global_off")
                ])
            #expect(try await store.deliverySummary("push-4-1") == [Summary(token: "tok-1", status: .queued)])
            let total = try store.read { db in try db.queryOne("SELECT COUNT(*) FROM deliveries") { $0.int(0) } }
            #expect(total == 5_000)
        }
    }
}

@Suite("Delivery ids")
struct DeliveryIDTests {
    @Test("a delivery id is a lower-case version 7 UUID carrying the time it was made, different every time")
    func shape() {
        var random = SystemRandomNumberGenerator()
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let ids = (0..<1_000).map { _ in DeliveryID.make(using: &random) }
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(Set(ids).count == 1_000)
        for id in ids {
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString.lowercased() == id, "\(id)")
            #expect(Array(id)[14] == "7" && "89ab".contains(Array(id)[19]), "\(id)")
            let milliseconds = UInt64(id.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16) ?? 0
            // At most 1,000 ids borrow that many milliseconds from the future.
            #expect(milliseconds >= before && milliseconds <= after + 1_000, "\(id)")
        }
    }

    /// No id from the future here: the sequence is the process's, and `shape` checks the time.
    @Test("ids sort in the order they were made: within one millisecond, and when the clock steps back")
    func timeOrdered() {
        var random = SystemRandomNumberGenerator()
        let now = Date()
        var ids = (0..<10_000).map { _ in DeliveryID.make(using: &random, now: now) }
        ids += (0..<10).map { _ in DeliveryID.make(using: &random, now: now.addingTimeInterval(-60)) }
        ids.append(DeliveryID.make(using: &random))
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }
}
