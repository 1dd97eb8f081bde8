import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

@Suite("Delivery outbox at publish")
struct OutboxTests {
    @Test("the delivery rows share the publish transaction: a publish failing after them writes nothing")
    func sameTransaction() async throws {
        try await withStore { (store) async throws in
            try await store.addDevice("phone")
            // The counters are written after the delivery rows; make that write fail.
            try await store.write { db in
                try db.executeUncached(
                    "CREATE TRIGGER refuse BEFORE INSERT ON user_counters BEGIN SELECT RAISE(ABORT, 'refused'); END")
            }
            await #expect(throws: StoreError.self) { try await store.publishPushed(["n1"]) }
            #expect(try await store.deliveries(notificationID: "n1").isEmpty)
            #expect(try await store.publishedNotification(id: "n1") == nil)
            let total = try await store.read { db in
                try db.queryOne("SELECT COUNT(*) AS total FROM deliveries") { row throws(StoreError) in
                    try row.int("total")
                }
            }
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
            let total = try await store.read { db in
                try db.queryOne("SELECT COUNT(*) AS total FROM deliveries") { row throws(StoreError) in
                    try row.int("total")
                }
            }
            #expect(total == 5_000)
        }
    }
}

@Suite("Time-ordered ids")
struct TimeOrderedIDTests {
    @Test("a delivery id is a lower-case version 7 UUID carrying the time it was made, different every time")
    func shape() {
        var random = SystemRandomNumberGenerator()
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let ids = (0..<1_000).map { _ in TimeOrderedID.make(using: &random) }
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
        var ids = (0..<10_000).map { _ in TimeOrderedID.make(using: &random, now: now) }
        ids += (0..<10).map { _ in TimeOrderedID.make(using: &random, now: now.addingTimeInterval(-60)) }
        ids.append(TimeOrderedID.make(using: &random))
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }
}
