import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Broadcasts: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum BroadcastConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case listedAudience =
        "a listed audience is stored once per distinct id; chunks reach each user once, in user id order"
    case everyKnownUser =
        "every user is anyone with a device, stored preferences or an inbox counter, each reached once"
    case crashResumesExactlyOnce =
        "a runner that dies mid-fan-out is taken over after its lease, from the next chunk; its token writes nothing"
    case concurrentClaims = "two runners claiming at once: one gets the broadcast, the other nothing"
    case claimOrder = "the oldest broadcast is claimed first, each by one runner; the list pages newest first"
    case pushDeliveries = "a broadcast asking for push writes delivery rows under each user's push policy"
    case idempotency =
        "Idempotency-Key: a replay answers the first broadcast, a different body conflicts, a publish key is separate"
    case release = "a runner that stops hands the broadcast back: the next claim takes it at once, from its cursor"
    case failing = "a held broadcast can be ended failed with its reason; a stale claim cannot"
    case activeCap =
        "a key at its cap of queued or running broadcasts stores nothing more; a replay still answers; racing creations never pass it"

    var testDescription: String { rawValue }

    var template: BroadcastTemplate {
        BroadcastTemplate(type: "announcement.sale", title: "Sale", body: "Everything half price")
    }

    func create(
        _ store: some HeraldStore, id: String = "b1", users: [String]?, template: BroadcastTemplate? = nil,
        idempotency: IdempotencyClaim? = nil, createdAt: Date = t0
    ) async throws -> BroadcastCreation {
        try await store.createBroadcast(
            NewBroadcast(
                id: id, apiKeyID: "key-1", template: template ?? self.template, userIDs: users, createdAt: createdAt),
            idempotency: idempotency)
    }

    func chunk(
        _ store: some HeraldStore, _ claim: ClaimedBroadcast, limit: Int, now: Date = at(1)
    ) async throws -> BroadcastChunk? {
        try await store.fanOutBroadcastChunk(
            id: claim.id, claimToken: claim.claimToken, limit: limit, catalog: .standard, now: now, lease: 30)
    }

    /// The ids of `user`'s broadcast notifications (type `announcement.sale`).
    func broadcastRows(_ store: some HeraldStore, _ user: String) async throws -> [InboxNotification] {
        try await store.inboxPage(userID: user, category: nil, beforeSeq: nil, limit: 100).items
            .filter { $0.type == "announcement.sale" }
    }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .listedAudience:
            guard case .created(let created) = try await create(store, users: ["carol", "alice", "bob", "alice"])
            else {
                Issue.record("not created")
                return
            }
            #expect(created.status == .queued && created.total == 3 && created.processed == 0)
            #expect(created.audience == .users && created.startedAt == nil)

            let claim = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            #expect(claim.id == "b1" && claim.leaseExpiresAt == at(30))
            let first = try #require(try await chunk(store, claim, limit: 2))
            #expect(first.events.map(\.userID) == ["alice", "bob"])
            #expect(first.counts == ["alice": counts(1, 1), "bob": counts(1, 1)])
            #expect(first.broadcast.status == .running && first.broadcast.processed == 2)
            #expect(first.broadcast.startedAt == t0)
            #expect(!first.wroteDeliveries)

            let second = try #require(try await chunk(store, claim, limit: 2, now: at(2)))
            #expect(second.events.map(\.userID) == ["carol"])
            #expect(second.broadcast.status == .completed && second.broadcast.processed == 3)
            #expect(second.broadcast.total == 3 && second.broadcast.completedAt == at(2))
            #expect(try await chunk(store, claim, limit: 2) == nil, "a completed broadcast takes no more chunks")
            #expect(try await store.claimBroadcast(now: at(100), lease: 30) == nil)

            for user in ["alice", "bob", "carol"] {
                let rows = try await broadcastRows(store, user)
                #expect(rows.count == 1 && rows.first?.title == "Sale", "\(user)")
            }
            #expect(try await store.broadcast(id: "b1") == second.broadcast)
        case .everyKnownUser:
            try await store.addDevice("tok-1", user: "device-only")
            try await store.addDevice("tok-2", user: "both")
            _ = try await store.deleteDevice(userID: "both", token: "tok-2")
            try await store.addDevice("tok-3", user: "inactive-device")
            try await store.setPreferences("prefs-only") { $0.globalEnabled = false }
            try await store.setPreferences("both") { $0.globalEnabled = true }
            try await publish(store, ids: ["earlier"], user: "inbox-only")
            try await store.insertEvents(
                userID: "events-only", [AnalyticsEvent(name: "app.opened", at: t0)], receivedAt: t0)

            _ = try await create(store, users: nil)
            #expect(try await store.broadcast(id: "b1")?.total == nil, "counted when the fan-out starts")
            let claim = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            #expect(try await store.broadcast(id: "b1")?.total == 5)
            let chunk = try #require(try await chunk(store, claim, limit: 3))
            #expect(chunk.events.map(\.userID) == ["both", "device-only", "inactive-device"])
            let last = try #require(try await self.chunk(store, claim, limit: 3))
            #expect(last.events.map(\.userID) == ["inbox-only", "prefs-only"])
            #expect(last.broadcast.status == .completed && last.broadcast.processed == 5 && last.broadcast.total == 5)
            #expect(last.counts["inbox-only"] == counts(2, 2))
            #expect(try await broadcastRows(store, "events-only").isEmpty)
            #expect(try await store.counts(userID: "events-only") == counts(0, 0))
        case .crashResumesExactlyOnce:
            let users = (1...5).map { "u\($0)" }
            _ = try await create(store, users: users)
            let dead = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            _ = try #require(try await chunk(store, dead, limit: 2))
            // The runner holding it dies here. Until its lease runs out nobody else takes it.
            #expect(try await store.claimBroadcast(now: at(29), lease: 30) == nil)

            let next = try #require(try await store.claimBroadcast(now: at(31), lease: 30))
            #expect(next.id == dead.id && next.claimToken != dead.claimToken)
            #expect(try await chunk(store, dead, limit: 2, now: at(32)) == nil, "the old claim is void")
            #expect(try await store.broadcast(id: "b1")?.processed == 2)
            var reached: [String] = []
            while let step = try await chunk(store, next, limit: 2, now: at(33)) {
                reached += step.events.map(\.userID)
                if step.broadcast.status == .completed { break }
            }
            #expect(reached == ["u3", "u4", "u5"])
            for user in users {
                #expect(try await broadcastRows(store, user).count == 1, "\(user) exactly once")
            }
            #expect(try await store.broadcast(id: "b1")?.startedAt == t0, "started when first claimed")
        case .concurrentClaims:
            _ = try await create(store, users: ["a"])
            async let first = store.claimBroadcast(now: t0, lease: 30)
            async let second = store.claimBroadcast(now: t0, lease: 30)
            let claims = [try await first, try await second].compactMap { $0 }
            #expect(claims.count == 1)
        case .claimOrder:
            for id in ["first", "second", "third"] {
                _ = try await create(store, id: id, users: ["a"])
            }
            #expect(try await store.claimBroadcast(now: at(10), lease: 30)?.id == "first")
            #expect(try await store.claimBroadcast(now: at(10), lease: 30)?.id == "second")

            let page = try await store.broadcasts(beforeSeq: nil, limit: 2)
            #expect(page.items.map(\.id) == ["third", "second"] && page.hasMore)
            #expect(page.items.map(\.status) == [.queued, .running])
            let rest = try await store.broadcasts(beforeSeq: page.lastSeq, limit: 2)
            #expect(rest.items.map(\.id) == ["first"] && !rest.hasMore)
        case .pushDeliveries:
            try await store.addDevice("phone-1", user: "u1")
            try await store.addDevice("phone-2", user: "u2")
            try await store.setPreferences("u2") { $0.globalEnabled = false }
            var pushing = template
            pushing.push = PushOptions(send: true, ttlSeconds: 600)
            _ = try await create(store, users: ["u1", "u2", "u3"], template: pushing)
            let claim = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            let step = try #require(try await chunk(store, claim, limit: 10))
            #expect(step.wroteDeliveries)
            let expected: [String: [Summary]] = [
                "u1": [Summary(token: "phone-1", status: .queued, reason: nil)],
                "u2": [Summary(token: "phone-2", status: .skipped, reason: "global_off")],
                "u3": [Summary(token: nil, status: .skipped, reason: "no_device")],
            ]
            for (user, summary) in expected {
                let row = try #require(try await broadcastRows(store, user).first)
                #expect(try await store.deliverySummary(row.id) == summary, "\(user)")
            }
            let due = try await store.claimDueDeliveries(limit: 10, now: at(2), lease: 30)
            #expect(due.map(\.userID) == ["u1"])
            #expect(due.first?.expiresAt == at(601), "TTL counts from the chunk's time")
        case .idempotency:
            let claim = IdempotencyClaim(apiKeyID: "key-1", key: "sale-1", requestHash: "h1", notBefore: at(-100))
            guard case .created = try await create(store, id: "b1", users: ["a", "b"], idempotency: claim) else {
                Issue.record("not created")
                return
            }
            let replay = try await create(store, id: "b2", users: ["a", "b"], idempotency: claim, createdAt: at(1))
            guard case .replayed(let first) = replay else {
                Issue.record("not replayed: \(replay)")
                return
            }
            #expect(first.id == "b1")
            #expect(try await store.broadcast(id: "b2") == nil)
            var changed = claim
            changed.requestHash = "h2"
            #expect(try await create(store, id: "b3", users: ["a"], idempotency: changed) == .conflict)

            let publishClaim = IdempotencyClaim(apiKeyID: "key-1", key: "sale-1", requestHash: "p", notBefore: at(-100))
            let outcome = try await store.publish(
                [note("n1", user: "a")], catalog: .standard, idempotency: publishClaim)
            #expect(outcome.createdEvents?.count == 1, "the same key text on a publish is another slot")

            let expired = IdempotencyClaim(apiKeyID: "key-1", key: "sale-1", requestHash: "h9", notBefore: at(10))
            guard case .created = try await create(store, id: "b4", users: ["a"], idempotency: expired) else {
                Issue.record("an expired claim is replaced")
                return
            }
        case .release:
            _ = try await create(store, users: ["a", "b", "c"])
            let stopping = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            #expect(try await chunk(store, stopping, limit: 1)?.events.map(\.userID) == ["a"])
            #expect(try await store.releaseBroadcast(id: "b1", claimToken: stopping.claimToken, now: at(2)))
            #expect(try await !store.releaseBroadcast(id: "b1", claimToken: stopping.claimToken, now: at(2)))
            let next = try #require(try await store.claimBroadcast(now: at(2), lease: 30))
            #expect(try await chunk(store, stopping, limit: 10) == nil)
            let rest = try #require(try await chunk(store, next, limit: 10, now: at(3)))
            #expect(rest.events.map(\.userID) == ["b", "c"] && rest.broadcast.status == .completed)
        case .failing:
            _ = try await create(store, users: ["a", "b"])
            let stale = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            let claim = try #require(try await store.claimBroadcast(now: at(31), lease: 30))
            #expect(try await !store.failBroadcast(id: "b1", claimToken: stale.claimToken, reason: "x", now: at(32)))
            #expect(
                try await store.failBroadcast(id: "b1", claimToken: claim.claimToken, reason: "disk full", now: at(33)))
            let failed = try #require(try await store.broadcast(id: "b1"))
            #expect(failed.status == .failed && failed.failureReason == "disk full" && failed.completedAt == at(33))
            #expect(try await chunk(store, claim, limit: 10) == nil)
            #expect(try await store.claimBroadcast(now: at(100), lease: 30) == nil)
        case .activeCap:
            func capped(_ id: String, key: String = "key-1", idempotency: IdempotencyClaim? = nil) async throws
                -> BroadcastCreation
            {
                try await store.createBroadcast(
                    NewBroadcast(id: id, apiKeyID: key, template: template, userIDs: ["a"], createdAt: t0),
                    idempotency: idempotency, maxActive: 2)
            }
            let claim = IdempotencyClaim(apiKeyID: "key-1", key: "k", requestHash: "h", notBefore: at(-100))
            guard case .created = try await capped("b1", idempotency: claim) else {
                Issue.record("not created")
                return
            }
            guard case .created = try await capped("b2") else {
                Issue.record("not created")
                return
            }
            #expect(try await capped("b3") == .limitReached(active: 2))
            #expect(try await store.broadcast(id: "b3") == nil)
            guard case .replayed(let first) = try await capped("b4", idempotency: claim), first.id == "b1" else {
                Issue.record("a replay at the cap is answered")
                return
            }
            guard case .created = try await capped("b5", key: "key-2") else {
                Issue.record("another key has its own cap")
                return
            }
            let held = try #require(try await store.claimBroadcast(now: t0, lease: 30))
            #expect(try await capped("b6") == .limitReached(active: 2), "running counts too")
            _ = try await chunk(store, held, limit: 10)
            #expect(try await store.broadcast(id: held.id)?.status == .completed)
            guard case .created = try await capped("b7") else {
                Issue.record("a completed broadcast frees its place")
                return
            }
            // Each creation writes 200 audience rows after counting, so creations overlap.
            let audience = (0..<200).map { "user-\($0)" }
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let outcome = try await store.createBroadcast(
                            NewBroadcast(
                                id: "race-\(index)", apiKeyID: "key-3", template: template, userIDs: audience,
                                createdAt: t0),
                            idempotency: nil, maxActive: 3)
                        if case .created = outcome { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(created == 3)
        }
    }
}

@Suite("Broadcasts conformance: SQLite")
struct SQLiteBroadcastConformanceTests {
    @Test("SQLite store", arguments: BroadcastConformanceCheck.allCases)
    func conforms(_ check: BroadcastConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Broadcasts conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresBroadcastConformanceTests {
    @Test("PostgreSQL store", arguments: BroadcastConformanceCheck.allCases)
    func conforms(_ check: BroadcastConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
