import Foundation
import HeraldModel
import Synchronization
import Testing

@testable import HeraldStore

/// Stream events: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum StreamEventConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case orderAndResume = "events come back oldest first and resume after a seq"
    case latestWithoutEvents = "the latest seq is 0 without events"
    case updatedPayload =
        "the updated payload names id, readAt, seenAt and deleted, with ISO 8601 times and explicit nulls"
    case prune = "prune removes only older events, and seqs never go back after a prune"
    case changeFeed =
        "every committed write a user can see reaches the store's change feed by the time it returns: publish, read, delete, mark all seen"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .orderAndResume:
            try await publish(store, ids: ["n1", "n2", "n3"])
            try await publish(store, ids: ["other"], user: "u2")
            _ = try await store.markRead(userID: "u1", id: "n1", at: at(10))
            let all = try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 100)
            #expect(
                all.map(\.kind) == [
                    StreamEventRecord.notificationCreated, StreamEventRecord.notificationCreated,
                    StreamEventRecord.notificationCreated, StreamEventRecord.notificationUpdated,
                ])
            #expect(all.allSatisfy { $0.userID == "u1" })
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.seq < $1.seq })
            #expect(try await store.latestStreamSeq(userID: "u1") == all.last?.seq)

            let resumed = try await store.streamEvents(userID: "u1", afterSeq: all[1].seq, limit: 100)
            #expect(resumed == Array(all.dropFirst(2)))
            let limited = try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 2)
            #expect(limited == Array(all.prefix(2)))
            #expect(try await store.streamEvents(userID: "u1", afterSeq: all.last!.seq, limit: 10).isEmpty)
        case .latestWithoutEvents:
            #expect(try await store.latestStreamSeq(userID: "u1") == 0)
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).isEmpty)
        case .updatedPayload:
            try await publish(store, ids: ["n1", "n2"])
            let read = try #require(try await store.markRead(userID: "u1", id: "n1", at: at(10)))
            let readEvent = try #require(read.event)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(readEvent.payload.utf8)) as? [String: Any])
            #expect(object["id"] as? String == "n1")
            #expect(object["readAt"] as? String == "2023-11-14T22:13:30Z")
            #expect(object["seenAt"] as? String == "2023-11-14T22:13:30Z")
            #expect(object["deleted"] as? Bool == false)

            let deleted = try #require(try await store.delete(userID: "u1", id: "n2", at: at(20)))
            let payload = try #require(deleted.event).payload
            #expect(payload == #"{"deleted":true,"id":"n2","readAt":null,"seenAt":null}"#)
        case .prune:
            _ = try await store.publish(
                [
                    note("n1", createdAt: at(0)), note("n2", createdAt: at(100)),
                    note("n3", user: "u2", createdAt: at(200)),
                ],
                catalog: .standard, idempotency: nil)
            let latest = try await store.latestStreamSeq(userID: "u2")
            #expect(try await store.pruneStreamEvents(olderThan: at(150)) == 2)
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).isEmpty)
            #expect(try await store.streamEvents(userID: "u2", afterSeq: 0, limit: 10).count == 1)
            #expect(try await store.pruneStreamEvents(olderThan: at(1_000)) == 1)
            #expect(try await store.pruneStreamEvents(olderThan: at(1_000)) == 0)
            // Every event is gone; the next one still gets a larger seq.
            let next = try await publish(store, ids: ["n4"], user: "u2")
            #expect(try #require(next.createdEvents?.first).seq > latest)
        case .changeFeed:
            let source = store
            let heard = Mutex<[LiveChange]>([])
            try source.startWatchingChanges { change in heard.withLock { $0.append(change) } }
            defer { source.stopWatchingChanges() }
            func heardEvents(of user: String, through seq: Int64) -> Bool {
                heard.withLock { $0 }.contains { $0 == .events(userIDs: [user], throughSeq: seq) }
            }
            let published = try await publish(store, ids: ["n1", "n2"])
            #expect(heardEvents(of: "u1", through: try #require(published.createdEvents?.last).seq))
            let read = try await store.markRead(userID: "u1", id: "n1", at: at(10))
            #expect(heardEvents(of: "u1", through: try #require(read?.event).seq))
            let deleted = try await store.delete(userID: "u1", id: "n2", at: at(11))
            #expect(heardEvents(of: "u1", through: try #require(deleted?.event).seq))
            _ = try await store.markAllSeen(userID: "u1", at: at(12))
            #expect(heard.withLock { $0 }.contains(.counts(userIDs: ["u1"])))
            // A read changes nothing and reports nothing (on SQLite: PostgreSQL's listener may
            // still be hearing the NOTIFYs of the writes above).
            guard store is SQLiteStore else { return }
            let before = heard.withLock { $0 }.filter { $0 != .resync }.count
            _ = try await store.counts(userID: "u1")
            #expect(heard.withLock { $0 }.filter { $0 != .resync }.count == before)
        }
    }
}

@Suite("Stream events conformance: SQLite")
struct SQLiteStreamEventConformanceTests {
    @Test("SQLite store", arguments: StreamEventConformanceCheck.allCases)
    func conforms(_ check: StreamEventConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Stream events conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresStreamEventConformanceTests {
    @Test("PostgreSQL store", arguments: StreamEventConformanceCheck.allCases)
    func conforms(_ check: StreamEventConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
