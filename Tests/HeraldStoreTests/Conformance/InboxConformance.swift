import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Inbox: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum InboxConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case paging = "inbox pages newest first; the cursor is exclusive and hasMore is exact"
    case emptyInbox = "an empty inbox has no items, no cursor and zero counts"
    case categoryFilter =
        "INBOX-10 the category filter pages within the category; uncategorised rows appear under All only"
    case perUser = "pages hold only the user's own rows"
    case adminRowsHidden = "INBOX-11 admin rows are never listed, counted, streamed or readable"
    case deletedExcluded = "deleted rows leave pages and counts"
    case detailNotFound = "DETAIL-02 a bad id, another user's, a deleted or an admin notification all read as nil"
    case detailReturned = "the detail call returns the rich detail; list items carry none"
    case countsFollowChanges = "counts follow publish, read, seen and delete"
    case idempotentRead =
        "read is idempotent: the first readAt stays, a second read appends no event; reading marks seen"
    case readKeepsSeen = "reading an already seen row keeps its seenAt"
    case markAllSeen = "INBOX-08 mark all seen clears the badge count and keeps every unread dot"
    case idempotentDelete = "delete is soft and idempotent: a second delete answers with no event"
    case foreignRows = "read and delete of another user's or a missing row find nothing and change nothing"
    case limitClamp = "a limit below one still returns one row"
    case renderedMatchesColumns =
        "each row's stored list JSON, completed with its current read and seen times, is the row as the detail read sees it"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .paging:
            let ids = (1...25).map { "n\($0)" }
            try await publish(store, ids: ids)
            let first = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 10)
            #expect(first.items.map(\.id) == (16...25).reversed().map { "n\($0)" })
            #expect(first.hasMore)
            #expect(first.counts == counts(25, 25))
            let second = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: first.lastSeq, limit: 10)
            #expect(second.items.map(\.id) == (6...15).reversed().map { "n\($0)" })
            #expect(second.hasMore)
            let third = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: second.lastSeq, limit: 10)
            #expect(third.items.map(\.id) == (1...5).reversed().map { "n\($0)" })
            #expect(!third.hasMore)
            let past = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: third.lastSeq, limit: 10)
            #expect(past.items.isEmpty)
            #expect(past.lastSeq == nil)
            #expect(!past.hasMore)
            // Exactly a page left: no more.
            let exact = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: second.lastSeq, limit: 5)
            #expect(exact.items.count == 5)
            #expect(!exact.hasMore)
        case .emptyInbox:
            #expect(
                try await store.inboxPage(userID: "nobody", category: nil, beforeSeq: nil, limit: 20)
                    == InboxPageRecord(items: [], lastSeq: nil, hasMore: false, counts: counts(0, 0)))
        case .categoryFilter:
            var batch: [NewNotification] = []
            for index in 0..<12 {
                let (type, category): (String, String?) =
                    switch index % 3 {
                    case 0: ("order.shipped", "orders")
                    case 1: ("promo.flash", "promotions")
                    default: ("system.notice", nil)
                    }
                batch.append(note("n\(index)", type: type, category: category, createdAt: at(Double(index))))
            }
            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
            let orders = try await store.inboxPage(userID: "u1", category: "orders", beforeSeq: nil, limit: 3)
            #expect(orders.items.map(\.id) == ["n9", "n6", "n3"])
            #expect(orders.hasMore)
            let rest = try await store.inboxPage(userID: "u1", category: "orders", beforeSeq: orders.lastSeq, limit: 3)
            #expect(rest.items.map(\.id) == ["n0"])
            #expect(!rest.hasMore)
            let all = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20)
            #expect(all.items.count == 12)
            #expect(all.items.filter { $0.category == nil }.map(\.id) == ["n11", "n8", "n5", "n2"])
        case .perUser:
            try await publish(store, ids: ["a1", "a2"], user: "alice")
            try await publish(store, ids: ["b1"], user: "bob")
            #expect(
                try await store.inboxPage(userID: "alice", category: nil, beforeSeq: nil, limit: 20).items.map(\.id)
                    == ["a2", "a1"])
            #expect(
                try await store.inboxPage(userID: "bob", category: nil, beforeSeq: nil, limit: 20).items.map(\.id) == [
                    "b1"
                ])
        case .adminRowsHidden:
            _ = try await store.publish(
                [note("visible"), note("secret", type: "admin.audit", category: nil)], catalog: .standard,
                idempotency: nil)
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20)
            #expect(page.items.map(\.id) == ["visible"])
            #expect(page.counts == counts(1, 1))
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).count == 1)
            #expect(try await store.notification(userID: "u1", id: "secret") == nil)
            #expect(try await store.markRead(userID: "u1", id: "secret", at: at(1)) == nil)
            #expect(try await store.delete(userID: "u1", id: "secret", at: at(1)) == nil)
            #expect(try await store.markAllSeen(userID: "u1", at: at(2)) == counts(1, 0))
        case .deletedExcluded:
            try await publish(store, ids: ["n1", "n2", "n3"])
            _ = try await store.delete(userID: "u1", id: "n2", at: at(10))
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20)
            #expect(page.items.map(\.id) == ["n3", "n1"])
            #expect(page.counts == counts(2, 2))
            #expect(
                try await store.inboxPage(userID: "u1", category: "orders", beforeSeq: nil, limit: 20).items.count == 2)
        case .detailNotFound:
            _ = try await store.publish(
                [
                    note("mine"), note("theirs", user: "u2"), note("gone"),
                    note("admin", type: "admin.audit", category: nil),
                ], catalog: .standard, idempotency: nil)
            _ = try await store.delete(userID: "u1", id: "gone", at: at(5))
            #expect(try await store.notification(userID: "u1", id: "nope") == nil)
            #expect(try await store.notification(userID: "u1", id: "theirs") == nil)
            #expect(try await store.notification(userID: "u1", id: "gone") == nil)
            #expect(try await store.notification(userID: "u1", id: "admin") == nil)
            #expect(try await store.notification(userID: "u1", id: "mine") != nil)
        case .detailReturned:
            let detail = NotificationDetail(
                heroImageURL: "https://cdn.example.com/a.png", html: "<p>Shipped</p>", actionLabel: "Track",
                actionPath: "/orders/1")
            _ = try await store.publish(
                [
                    note("rich", deepLink: "/orders/1", detail: detail, push: PushOptions(send: true, priority: .high)),
                    note("empty", detail: NotificationDetail()),
                    note("plain"),
                ], catalog: .standard, idempotency: nil)
            let rich = try #require(try await store.notification(userID: "u1", id: "rich"))
            #expect(rich.detail == detail)
            #expect(rich.hasDetail)
            #expect(rich.deepLink == "/orders/1")
            #expect(rich.data == ["orderId": "o-1"])
            #expect(rich.createdAt == t0)
            let empty = try #require(try await store.notification(userID: "u1", id: "empty"))
            #expect(!empty.hasDetail)
            let plain = try #require(try await store.notification(userID: "u1", id: "plain"))
            #expect(plain.detail == nil)
            #expect(!plain.hasDetail)
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20)
            #expect(page.items.allSatisfy { $0.detail == nil })
            #expect(page.items.first { $0.id == "rich" }?.hasDetail == true)
        case .countsFollowChanges:
            #expect(try await store.counts(userID: "u1") == counts(0, 0))
            try await publish(store, ids: ["n1", "n2", "n3", "n4"])
            #expect(try await store.counts(userID: "u1") == counts(4, 4))
            #expect(try await store.markRead(userID: "u1", id: "n1", at: at(10))?.counts == counts(3, 3))
            #expect(try await store.markAllSeen(userID: "u1", at: at(11)) == counts(3, 0))
            #expect(try await store.markRead(userID: "u1", id: "n2", at: at(12))?.counts == counts(2, 0))
            // Deleting an unread but seen row drops the dot count only.
            #expect(try await store.delete(userID: "u1", id: "n3", at: at(13))?.counts == counts(1, 0))
            // A new arrival is unread and unseen.
            try await publish(store, ids: ["n5"])
            #expect(try await store.counts(userID: "u1") == counts(2, 1))
            // Deleting an unread, unseen row drops both.
            #expect(try await store.delete(userID: "u1", id: "n5", at: at(14))?.counts == counts(1, 0))
            // Deleting a read row changes neither.
            #expect(try await store.delete(userID: "u1", id: "n1", at: at(15))?.counts == counts(1, 0))
            #expect(try await store.counts(userID: "u2") == counts(0, 0))
        case .idempotentRead:
            try await publish(store, ids: ["n1"])
            let first = try #require(try await store.markRead(userID: "u1", id: "n1", at: at(10)))
            #expect(first.notification.readAt == at(10))
            #expect(first.notification.seenAt == at(10))
            let event = try #require(first.event)
            #expect(event.kind == StreamEventRecord.notificationUpdated)
            let second = try #require(try await store.markRead(userID: "u1", id: "n1", at: at(20)))
            #expect(second.notification.readAt == at(10))
            #expect(second.event == nil)
            #expect(second.counts == counts(0, 0))
            #expect(try await store.streamEvents(userID: "u1", afterSeq: event.seq, limit: 10).isEmpty)
            let stored = try #require(try await store.notification(userID: "u1", id: "n1"))
            #expect(stored.readAt == at(10))
        case .readKeepsSeen:
            try await publish(store, ids: ["n1"])
            _ = try await store.markAllSeen(userID: "u1", at: at(5))
            let read = try #require(try await store.markRead(userID: "u1", id: "n1", at: at(10)))
            #expect(read.notification.seenAt == at(5))
            #expect(read.notification.readAt == at(10))
        case .markAllSeen:
            try await publish(store, ids: ["n1", "n2"])
            #expect(try await store.markAllSeen(userID: "u1", at: at(30)) == counts(2, 0))
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20)
            #expect(page.items.allSatisfy { $0.seenAt == at(30) && $0.readAt == nil })
            // Again: nothing left to see, the first seenAt stays.
            #expect(try await store.markAllSeen(userID: "u1", at: at(40)) == counts(2, 0))
            #expect(try await store.notification(userID: "u1", id: "n1")?.seenAt == at(30))
            #expect(try await store.markAllSeen(userID: "nobody", at: at(40)) == counts(0, 0))
        case .idempotentDelete:
            try await publish(store, ids: ["n1"])
            let first = try #require(try await store.delete(userID: "u1", id: "n1", at: at(10)))
            #expect(first.notification.id == "n1")
            #expect(first.counts == counts(0, 0))
            let event = try #require(first.event)
            let payload = try JSONDecoder.iso8601.decode(
                StreamEventRecord.NotificationUpdated.self, from: Data(event.payload.utf8))
            #expect(payload == StreamEventRecord.NotificationUpdated(id: "n1", readAt: nil, seenAt: nil, deleted: true))
            let second = try #require(try await store.delete(userID: "u1", id: "n1", at: at(20)))
            #expect(second.event == nil)
            #expect(second.counts == counts(0, 0))
            // A deleted row cannot be read any more.
            #expect(try await store.markRead(userID: "u1", id: "n1", at: at(30)) == nil)
        case .foreignRows:
            try await publish(store, ids: ["n1"], user: "owner")
            #expect(try await store.markRead(userID: "intruder", id: "n1", at: at(1)) == nil)
            #expect(try await store.delete(userID: "intruder", id: "n1", at: at(1)) == nil)
            #expect(try await store.markRead(userID: "owner", id: "missing", at: at(1)) == nil)
            #expect(try await store.delete(userID: "owner", id: "missing", at: at(1)) == nil)
            #expect(try await store.counts(userID: "owner") == counts(1, 1))
            #expect(try await store.notification(userID: "owner", id: "n1")?.readAt == nil)
        case .limitClamp:
            try await publish(store, ids: ["n1", "n2"])
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 0)
            #expect(page.items.map(\.id) == ["n2"])
            #expect(page.hasMore)
        case .renderedMatchesColumns:
            let batch = (0..<30).map { (index: Int) -> NewNotification in
                let isOrder = index % 2 == 0
                let deepLink: String? = index % 3 == 0 ? "myapp://x" : nil
                return note(
                    "n\(index)", type: isOrder ? "order.shipped" : "promo.flash",
                    category: isOrder ? "orders" : "promotions",
                    createdAt: at(Double(index)), data: ["orderId": String(index), "quote": "\"\n\u{07}"],
                    deepLink: deepLink)
            }
            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
            _ = try await store.markRead(userID: "u1", id: "n28", at: at(100))
            _ = try await store.markAllSeen(userID: "u1", at: at(200))
            for category in [nil, "orders"] {
                var before: Int64?
                var seen = 0
                repeat {
                    let page = try await store.inboxPage(userID: "u1", category: category, beforeSeq: before, limit: 7)
                    for item in page.items {
                        var stored = try #require(try await store.notification(userID: "u1", id: item.id))
                        stored.detail = nil
                        #expect(item == stored)
                    }
                    seen += page.items.count
                    before = page.hasMore ? page.lastSeq : nil
                } while before != nil
                #expect(seen == (category == nil ? 30 : 15))
            }
        }
    }
}

@Suite("Inbox conformance: SQLite")
struct SQLiteInboxConformanceTests {
    @Test("SQLite store", arguments: InboxConformanceCheck.allCases)
    func conforms(_ check: InboxConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Inbox conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresInboxConformanceTests {
    @Test("PostgreSQL store", arguments: InboxConformanceCheck.allCases)
    func conforms(_ check: InboxConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
