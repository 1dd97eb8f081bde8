import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// What SQLite's one writer gives for free and PostgreSQL must lock for: several stores (each
/// its own connection, as several `herald` processes) changing the same rows at once.
@Suite(
    "PostgreSQL store: several processes",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresConcurrencyTests {
    /// Opens `count` stores on one new schema and runs `body` with them.
    private func withStores(_ count: Int, _ body: ([PostgresStore]) async throws -> Void) async throws {
        try await PostgresTestDatabase.withSchema { url in
            var stores: [PostgresStore] = []
            for _ in 0..<count { stores.append(try await PostgresTestDatabase.open(url)) }
            try await body(stores)
        }
    }

    @Test("publishes racing with one idempotency key create once; the others replay its answer")
    func idempotencyRace() async throws {
        try await withStores(4) { stores in
            let claim = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h1", notBefore: at(-60))
            let outcomes = try await withThrowingTaskGroup(of: PublishOutcome.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        try await store.publish([note("n\(index)")], catalog: .standard, idempotency: claim)
                    }
                }
                return try await group.reduce(into: [PublishOutcome]()) { $0.append($1) }
            }
            let created = outcomes.filter { $0.createdEvents != nil }
            #expect(created.count == 1)
            let event = try #require(created.first?.createdEvents?.first)
            let createdID = try JSONDecoder.iso8601.decode(InboxNotification.self, from: Data(event.payload.utf8)).id
            let replayed = [
                PublishOutcome.replayed(
                    PublishResponse(
                        messageId: nil, notifications: [PublishedNotification(id: createdID, recipient: "u1")]))
            ]
            #expect(outcomes.filter { $0.createdEvents == nil } == Array(repeating: replayed[0], count: 3))
            #expect(try await stores[0].counts(userID: "u1") == counts(1, 1))
        }
    }

    @Test("servers publishing due scheduled notifications at once publish each exactly once")
    func scheduledOnce() async throws {
        try await withStores(4) { stores in
            let ids = (0..<40).map { "n\($0)" }
            _ = try await MessageConformanceCheck.message(
                stores[0], id: "m1", ids: ids, users: ids.map { "user-\($0)" }, schedule: .at(at(60)), push: nil)
            let published = try await withThrowingTaskGroup(of: Int.self) { group in
                for store in stores {
                    group.addTask {
                        var total = 0
                        while true {
                            let run = try await store.publishDueScheduled(
                                limit: 3, rules: MessageConformanceCheck.rules, now: at(61))
                            if run.published == 0 { return total }
                            total += run.published
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(published == 40)
            #expect(try await stores[0].message(id: "m1")?.funnel.published == 40)
            #expect(try await stores[1].counts(userID: "user-n7") == counts(1, 1))
        }
    }

    @Test("a frequency cap holds across servers publishing to one user at once")
    func frequencyCapAcrossServers() async throws {
        try await withStores(4) { stores in
            try await stores[0].addDevice("phone")
            let rules = PushRules(
                catalog: .standard, frequencyCaps: [FrequencyCap(category: "promotions", max: 3, periodSeconds: 600)])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        for round in 0..<3 {
                            _ = try await MessageConformanceCheck.message(
                                store, id: "m\(index)-\(round)", ids: ["p\(index)-\(round)"], type: "promo.flash",
                                category: "promotions", rules: rules, createdAt: at(Double(round)))
                        }
                    }
                }
                try await group.waitForAll()
            }
            var reasons: [String] = []
            for index in 0..<4 {
                for round in 0..<3 {
                    reasons += try await stores[0].deliverySummary("p\(index)-\(round)").map {
                        $0.reason ?? $0.status.rawValue
                    }
                }
            }
            #expect(reasons.filter { $0 == "queued" }.count == 3, "\(reasons)")
            #expect(reasons.filter { $0 == "throttled" }.count == 9, "\(reasons)")
        }
    }

    @Test("servers running due digests at once send each user's summary once")
    func digestOnce() async throws {
        try await withStores(4) { stores in
            for user in ["u1", "u2", "u3"] {
                try await stores[0].addDevice("\(user)-phone", user: user)
                try await stores[0].setPreferences(user) {
                    $0.digest = DigestSettings(enabled: true, localTime: "08:00")
                }
                _ = try await MessageConformanceCheck.message(
                    stores[0], id: "m-\(user)", ids: ["n-\(user)"], users: [user],
                    push: PushOptions(send: true, digest: true))
            }
            let due = try #require(try await stores[0].nextDigestDue())
            let summaries = try await withThrowingTaskGroup(of: Int.self) { group in
                for store in stores {
                    group.addTask {
                        try await store.runDueDigests(limit: 1, template: .standard, catalog: .standard, now: due)
                            .summaries
                            + store.runDueDigests(limit: 5, template: .standard, catalog: .standard, now: due)
                            .summaries
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(summaries == 3)
            #expect(try await stores[0].claimDueDeliveries(limit: 10, now: due, lease: 30).count == 3)
        }
    }

    @Test("marking one row read from several processes at once changes the counters once")
    func markReadRace() async throws {
        try await withStores(4) { stores in
            try await publish(stores[0], ids: ["n1", "n2"])
            let outcomes = try await withThrowingTaskGroup(of: ChangeOutcome?.self) { group in
                for store in stores {
                    group.addTask { try await store.markRead(userID: "u1", id: "n1", at: at(10)) }
                }
                return try await group.reduce(into: [ChangeOutcome?]()) { $0.append($1) }
            }
            #expect(outcomes.compactMap { $0?.event }.count == 1)
            #expect(try await stores[0].counts(userID: "u1") == counts(1, 1))
        }
    }

    @Test("publishes to the same users listed in other orders never deadlock on the counter rows")
    func crossedRecipientsDoNotDeadlock() async throws {
        try await withStores(4) { stores in
            let users = (0..<8).map { "u\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    let order = index % 2 == 0 ? users : users.reversed()
                    group.addTask {
                        for round in 0..<10 {
                            let batch = order.map { note("n-\(index)-\(round)-\($0)", user: $0) }
                            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for user in users { #expect(try await stores[0].counts(userID: user) == counts(40, 40)) }
        }
    }

    @Test("mark-all-seen racing publishes leaves the unseen counter equal to the unseen rows")
    func markAllSeenRacesPublish() async throws {
        try await withStores(2) { stores in
            let publisher = stores[0]
            let reader = stores[1]
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<30 {
                        _ = try await publisher.publish(
                            [note("n\(index)", createdAt: at(Double(index)))], catalog: .standard, idempotency: nil)
                    }
                }
                group.addTask {
                    for index in 0..<30 { _ = try await reader.markAllSeen(userID: "u1", at: at(Double(index))) }
                }
                try await group.waitForAll()
            }
            let page = try await reader.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 100)
            #expect(page.items.count == 30)
            #expect(page.counts == counts(30, page.items.filter { $0.seenAt == nil }.count))
        }
    }

    @Test("workers claiming in several processes at once never get the same row, and together get every row")
    func claimRace() async throws {
        try await withStores(4) { stores in
            try await stores[0].addDevice("phone")
            try await stores[0].addDevice("tablet")
            try await stores[0].publishPushed((0..<100).map { "n\($0)" })
            let ids = try await claimAll(by: stores)
            #expect(ids.count == 200)
            #expect(Set(ids).count == 200)
        }
    }
}
