import Foundation
import HeraldModel
import HeraldServerModel
import HeraldTestSupport

@testable import HeraldStore

/// A fixed instant the tests count from (whole seconds, so ISO 8601 payloads round-trip).
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// Runs `body` against a fresh store in its own temporary directory, removed afterwards.
func withStore(readers: Int = 2, _ body: (SQLiteStore) async throws -> Void) async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteStore(path: directory.appendingPathComponent("herald.db").path, readers: readers)
    try await body(store)
}

func makeTemporaryDirectory() throws -> URL {
    try TemporaryDirectory("herald-store-tests").url
}

/// A notification for `user`; an `admin.*` type is hidden.
func note(
    _ id: String, user: String = "u1", type: String = "order.shipped", category: String? = "orders",
    createdAt: Date = t0, data: [String: String] = ["orderId": "o-1"], deepLink: String? = nil,
    detail: NotificationDetail? = nil, push: PushOptions? = nil
) -> NewNotification {
    NewNotification(
        id: id, userID: user, type: type, category: category, hidden: type.hasPrefix("admin."),
        title: "Title \(id)", body: "Body \(id)", data: data, deepLink: deepLink, detail: detail, push: push,
        createdAt: createdAt)
}

extension PublishOutcome {
    var createdEvents: [StreamEventRecord]? {
        if case .created(let events, _) = self { return events }
        return nil
    }

    var createdCounts: [String: Counts]? {
        if case .created(_, let counts) = self { return counts }
        return nil
    }
}

/// Publishes one notification per id to `user`, oldest first.
@discardableResult
func publish(
    _ store: some HeraldStore, ids: [String], user: String = "u1", type: String = "order.shipped",
    category: String? = "orders"
) async throws -> PublishOutcome {
    try await store.publish(
        ids.enumerated().map { index, id in
            note(id, user: user, type: type, category: category, createdAt: at(Double(index)))
        }, catalog: .standard, idempotency: nil)
}

func counts(_ unread: Int, _ unseen: Int) -> Counts { Counts(unread: unread, unseen: unseen) }

/// An inbox page with its rows decoded, as a client reads the list answer.
struct InboxPageRecord: Equatable {
    var items: [InboxNotification]
    var lastSeq: Int64?
    var hasMore: Bool
    var counts: Counts
}

extension HeraldStore {
    /// ``renderedInboxPage(userID:category:beforeSeq:limit:)`` with each row's list JSON
    /// completed and decoded.
    func inboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws -> InboxPageRecord {
        let page = try await renderedInboxPage(userID: userID, category: category, beforeSeq: beforeSeq, limit: limit)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let items = try page.items.map { item in
            let json = item.json + JSONWriter.text { $0.notificationClose(readAt: item.readAt, seenAt: item.seenAt) }
            return try decoder.decode(InboxNotification.self, from: Data(json.utf8))
        }
        return InboxPageRecord(items: items, lastSeq: page.lastSeq, hasMore: page.hasMore, counts: page.counts)
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
