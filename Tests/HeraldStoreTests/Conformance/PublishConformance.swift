import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Publishing: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum PublishConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case publishWrites = "publish writes the rows, the counters and one created event per visible notification"
    case allOrNothing = "publish is all or nothing: a duplicate id mid-batch writes nothing and keeps the counters"
    case idempotentReplay = "same key and request hash within the window replays the first answer and writes nothing"
    case idempotentConflict = "same key with a different request hash is a conflict and writes nothing"
    case idempotencyExpiry = "a claim older than notBefore is expired and replaced"
    case idempotencyPerAPIKey = "idempotency keys are scoped to the API key"
    case bulkBatch = "a batch of 1,000 recipients publishes in one call with per-recipient counts"
    case emptyPublish = "an empty publish creates nothing"
    case publishedNotification =
        "a notification reads back by id alone, with its recipient, push options, detail, hidden and deleted flags"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .publishWrites:
            let outcome = try await store.publish(
                [
                    note("n1", user: "u1", detail: NotificationDetail(html: "<p>hi</p>")),
                    note("n2", user: "u2", deepLink: "/orders/1"),
                    note("n3", user: "u1", type: "admin.audit", category: nil),
                    note("n4", user: "u3", type: "admin.audit", category: nil),
                ], catalog: .standard, idempotency: nil)
            let events = try #require(outcome.createdEvents)
            #expect(events.map(\.userID) == ["u1", "u2"])
            #expect(events.allSatisfy { $0.kind == StreamEventRecord.notificationCreated })
            #expect(events[0].seq < events[1].seq)
            // Each event's seq is the one stored (what a stream resuming after it reads from).
            for event in events {
                let stored = try await store.streamEvents(userID: event.userID, afterSeq: 0, limit: 10)
                #expect(stored.map(\.seq) == [event.seq])
            }
            #expect(outcome.createdCounts == ["u1": counts(1, 1), "u2": counts(1, 1), "u3": counts(0, 0)])

            // The created payload is the inbox item (no detail) in JSON.
            let payload = try JSONDecoder.iso8601.decode(InboxNotification.self, from: Data(events[0].payload.utf8))
            #expect(
                payload
                    == InboxNotification(
                        id: "n1", type: "order.shipped", category: "orders", title: "Title n1", body: "Body n1",
                        data: ["orderId": "o-1"], hasDetail: true, createdAt: t0))
            #expect(!events[0].payload.contains("\"detail\""))
            #expect(events[1].payload.contains("\"readAt\":null"))

            #expect(try await store.counts(userID: "u1") == counts(1, 1))
            #expect(
                try await store.inboxPage(userID: "u2", category: nil, beforeSeq: nil, limit: 20).items.map(\.id) == [
                    "n2"
                ])
        case .allOrNothing:
            try await publish(store, ids: ["a"], user: "u1")
            let before = try await store.latestStreamSeq(userID: "u1")
            let claim = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h1", notBefore: at(-3600))
            await #expect(throws: StoreError.self) {
                try await store.publish(
                    [note("b", user: "u1"), note("c", user: "u2"), note("a", user: "u2"), note("d", user: "u3")],
                    catalog: .standard, idempotency: claim)
            }
            #expect(try await store.counts(userID: "u1") == counts(1, 1))
            #expect(try await store.counts(userID: "u2") == counts(0, 0))
            #expect(
                try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20).items.map(\.id) == [
                    "a"
                ])
            #expect(try await store.inboxPage(userID: "u2", category: nil, beforeSeq: nil, limit: 20).items.isEmpty)
            #expect(try await store.notification(userID: "u1", id: "b") == nil)
            #expect(try await store.latestStreamSeq(userID: "u1") == before)
            #expect(try await store.latestStreamSeq(userID: "u2") == 0)
            // The claim was not recorded either: the same key now publishes.
            let retry = try await store.publish([note("b", user: "u1")], catalog: .standard, idempotency: claim)
            #expect(retry.createdEvents?.count == 1)
        case .idempotentReplay:
            let claim = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h1", notBefore: at(-86_400))
            let first = try await store.publish(
                [note("n1", user: "u1"), note("n2", user: "u2")], catalog: .standard, idempotency: claim)
            #expect(first.createdEvents?.count == 2)
            let again = try await store.publish(
                [note("x1", user: "u1"), note("x2", user: "u2")], catalog: .standard, idempotency: claim)
            #expect(
                again
                    == .replayed(
                        PublishResponse(
                            messageId: nil,
                            notifications: [
                                PublishedNotification(id: "n1", recipient: "u1"),
                                PublishedNotification(id: "n2", recipient: "u2"),
                            ])))
            #expect(try await store.counts(userID: "u1") == counts(1, 1))
            #expect(try await store.notification(userID: "u1", id: "x1") == nil)
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).count == 1)
        case .idempotentConflict:
            let claim = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h1", notBefore: at(-86_400))
            _ = try await store.publish([note("n1")], catalog: .standard, idempotency: claim)
            var other = claim
            other.requestHash = "h2"
            #expect(try await store.publish([note("n2")], catalog: .standard, idempotency: other) == .conflict)
            #expect(try await store.notification(userID: "u1", id: "n2") == nil)
            #expect(try await store.counts(userID: "u1") == counts(1, 1))
        case .idempotencyExpiry:
            let claim = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h1", notBefore: at(-86_400))
            _ = try await store.publish([note("n1", createdAt: t0)], catalog: .standard, idempotency: claim)
            // A day later the window starts after the first claim: the key publishes again.
            let later = IdempotencyClaim(apiKeyID: "k1", key: "idem-1", requestHash: "h2", notBefore: at(1))
            let second = try await store.publish(
                [note("n2", createdAt: at(86_401))], catalog: .standard, idempotency: later)
            #expect(second.createdEvents?.count == 1)
            // ...and the replacement is now the claim that replays.
            let replay = try await store.publish(
                [note("n3", createdAt: at(86_402))], catalog: .standard, idempotency: later)
            #expect(
                replay
                    == .replayed(
                        PublishResponse(
                            messageId: nil, notifications: [PublishedNotification(id: "n2", recipient: "u1")])))
            #expect(try await store.counts(userID: "u1") == counts(2, 2))
        case .idempotencyPerAPIKey:
            let first = IdempotencyClaim(apiKeyID: "k1", key: "same", requestHash: "h1", notBefore: at(-60))
            let second = IdempotencyClaim(apiKeyID: "k2", key: "same", requestHash: "h2", notBefore: at(-60))
            #expect(
                try await store.publish([note("n1")], catalog: .standard, idempotency: first).createdEvents?.count == 1)
            #expect(
                try await store.publish([note("n2")], catalog: .standard, idempotency: second).createdEvents?.count == 1
            )
        case .bulkBatch:
            try await publish(store, ids: ["old"], user: "r7")
            let batch = (0..<1_000).map { index in
                note("bulk-\(index)", user: "r\(index)", type: "promo.flash", category: "promotions")
            }
            let outcome = try await store.publish(batch, catalog: .standard, idempotency: nil)
            let events = try #require(outcome.createdEvents)
            #expect(events.count == 1_000)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.seq < $1.seq })
            let perUser = try #require(outcome.createdCounts)
            #expect(perUser.count == 1_000)
            #expect(perUser["r7"] == counts(2, 2))
            #expect(perUser["r999"] == counts(1, 1))
        case .emptyPublish:
            #expect(
                try await store.publish([], catalog: .standard, idempotency: nil) == .created(events: [], counts: [:]))
        case .publishedNotification:
            let push = PushOptions(send: true, priority: .normal, ttlSeconds: 60, collapseId: "c", sound: "default")
            _ = try await store.publish(
                [
                    note("n1", user: "u1", detail: NotificationDetail(html: "<p>hi</p>"), push: push),
                    note("n2", user: "u2", type: "admin.audit", category: nil),
                ], catalog: .standard, idempotency: nil)
            _ = try await store.delete(userID: "u1", id: "n1", at: at(5))
            let first = try #require(try await store.publishedNotification(id: "n1"))
            #expect(first.userID == "u1")
            #expect(first.push == push)
            #expect(first.notification.detail?.html == "<p>hi</p>")
            #expect(first.notification.hasDetail)
            #expect(first.deleted && !first.hidden)
            let hidden = try #require(try await store.publishedNotification(id: "n2"))
            #expect(hidden.userID == "u2" && hidden.hidden && !hidden.deleted && hidden.push == nil)
            #expect(try await store.publishedNotification(id: "missing") == nil)
        }
    }
}

@Suite("Publishing conformance: SQLite")
struct SQLitePublishConformanceTests {
    @Test("SQLite store", arguments: PublishConformanceCheck.allCases)
    func conforms(_ check: PublishConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Publishing conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresPublishConformanceTests {
    @Test("PostgreSQL store", arguments: PublishConformanceCheck.allCases)
    func conforms(_ check: PublishConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
