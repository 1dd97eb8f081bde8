import Foundation
import HeraldKit
import HeraldModel
import Testing

/// The inbox calls of a signed-in user on a server, in memory, with the real server's rules:
/// pages newest first under an opaque cursor, `limit` 1...100, catalog category filter, `admin.*`
/// and deleted rows never listed, other users' rows never seen, one 404 for a missing, deleted,
/// hidden or another user's id, idempotent read, open (the first open kept) and delete,
/// and the live events the server sends (`created`, `updated`, `counts` on every change and
/// when a stream opens). It records every call, and a test can make the next call of a kind
/// hang until released, or fail.
@MainActor public final class FakeInboxBackend {
    /// An inbox call of ``HeraldAPI``.
    public enum Endpoint: String, CaseIterable, Sendable {
        case notifications, notification, markRead, markOpened, markAllSeen, delete, counts, liveEvents
    }

    /// One call as it arrived.
    public enum Call: Equatable, Sendable {
        case notifications(cursor: String?, category: String?, limit: Int)
        case notification(id: String)
        case markRead(id: String)
        case markOpened(id: String)
        case markAllSeen
        case delete(id: String)
        case counts
        case liveEvents

        /// The endpoint called.
        public var endpoint: Endpoint {
            switch self {
            case .notifications: .notifications
            case .notification: .notification
            case .markRead: .markRead
            case .markOpened: .markOpened
            case .markAllSeen: .markAllSeen
            case .delete: .delete
            case .counts: .counts
            case .liveEvents: .liveEvents
            }
        }
    }

    /// What the next call of an endpoint does instead of answering at once.
    public enum Script: Sendable {
        /// It waits until ``release(_:)`` or ``fail(_:with:)`` (or its task is cancelled).
        case hang
        /// It throws this error.
        case fail(HeraldAPIError)
    }

    private struct Row {
        var seq: Int64
        var owner: String
        var item: InboxNotification
        var hidden: Bool
        var deleted = false
        /// When the user first opened it from its push.
        var openedAt: Date?
    }

    private struct Waiting {
        var id: Int
        var endpoint: Endpoint
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Every call, in order.
    public private(set) var calls: [Call] = []
    public let catalog: Catalog
    /// The signed-in user: the API's calls are theirs, and so are the rows given at init.
    public let user: String
    private let now: @MainActor @Sendable () -> Date
    /// Oldest first.
    private var rows: [Row] = []
    private var lastSeq: Int64 = 0
    private var scripts: [Endpoint: [Script]] = [:]
    private var waiting: [Waiting] = []
    private var nextWaitingID = 0
    private var streams: [Int: AsyncThrowingStream<LiveEvent, any Error>.Continuation] = [:]
    private var nextStreamID = 0

    /// A backend holding `notifications` of `user`, given newest first as the inbox lists them.
    /// As on the server, each row's `category` and `hasDetail` come from its type and detail,
    /// and `admin.*` rows are stored but never shown.
    public init(
        _ notifications: [InboxNotification] = [], user: String = "me", catalog: Catalog = .standard,
        now: @escaping @MainActor @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
    ) {
        self.catalog = catalog
        self.user = user
        self.now = now
        for notification in notifications.reversed() { store(notification, for: user) }
    }

    // MARK: - The API

    /// The ``HeraldAPI`` whose `endpoints` this backend serves; every other call is `base`'s
    /// (by default, one that fails the test).
    public func api(serving endpoints: Set<Endpoint> = Set(Endpoint.allCases), base: HeraldAPI = .failing)
        -> HeraldAPI
    {
        var api = base
        if endpoints.contains(.notifications) {
            api.notifications = { [self] cursor, category, limit in
                try await page(cursor: cursor, category: category, limit: limit)
            }
        }
        if endpoints.contains(.notification) {
            api.notification = { [self] id in try await notification(id: id) }
        }
        if endpoints.contains(.markRead) {
            api.markRead = { [self] id in try await markRead(id: id) }
        }
        if endpoints.contains(.markOpened) {
            api.markOpened = { [self] id in try await markOpened(id: id) }
        }
        if endpoints.contains(.markAllSeen) {
            api.markAllSeen = { [self] in try await markAllSeen() }
        }
        if endpoints.contains(.delete) {
            api.delete = { [self] id in try await delete(id: id) }
        }
        if endpoints.contains(.counts) {
            api.counts = { [self] in
                try await arrive(.counts)
                return counts
            }
        }
        if endpoints.contains(.liveEvents) {
            api.liveEvents = { [self] in openStream() }
        }
        return api
    }

    private func page(cursor: String?, category: String?, limit: Int) async throws -> NotificationPage {
        try await arrive(.notifications(cursor: cursor, category: category, limit: limit))
        guard (1...100).contains(limit) else {
            throw Self.badRequest("invalid_limit", "`limit` must be a whole number from 1 to 100.")
        }
        var beforeSeq = Int64.max
        if let cursor, !cursor.isEmpty {
            guard let seq = InboxCursor.decode(cursor) else {
                throw Self.badRequest("invalid_cursor", "`cursor` is not a cursor this server issued.")
            }
            beforeSeq = seq
        }
        var categoryID: String?
        if let category, !category.isEmpty, category != "all" {
            guard catalog.category(id: category) != nil else {
                throw Self.badRequest("unknown_category", "`category` \"\(category)\" is not a catalog category.")
            }
            categoryID = category
        }
        let candidates = listedRows.reversed().filter {
            $0.seq < beforeSeq && (categoryID == nil || $0.item.category == categoryID)
        }
        let page = candidates.prefix(limit)
        let hasMore = candidates.count > limit
        return NotificationPage(
            items: page.map { Self.listed($0.item) },
            nextCursor: hasMore ? page.last.map { InboxCursor.encode(seq: $0.seq) } : nil,
            unreadCount: counts.unread, unseenCount: counts.unseen)
    }

    private func notification(id: String) async throws -> InboxNotification {
        try await arrive(.notification(id: id))
        guard let index = visibleIndex(id: id), !rows[index].deleted else { throw Self.notFound }
        return rows[index].item
    }

    private func markRead(id: String) async throws -> InboxNotification {
        try await arrive(.markRead(id: id))
        guard let index = visibleIndex(id: id), !rows[index].deleted else { throw Self.notFound }
        if rows[index].item.readAt == nil {
            let at = now()
            rows[index].item.readAt = at
            rows[index].item.seenAt = rows[index].item.seenAt ?? at
            let item = rows[index].item
            broadcast(.updated(NotificationChange(id: id, readAt: item.readAt, seenAt: item.seenAt)))
            broadcast(.counts(counts))
        }
        return Self.listed(rows[index].item)
    }

    /// Records the first open only, and changes nothing the inbox shows (no live event).
    private func markOpened(id: String) async throws -> NotificationOpened {
        try await arrive(.markOpened(id: id))
        guard let index = visibleIndex(id: id), !rows[index].deleted else { throw Self.notFound }
        let openedAt = rows[index].openedAt ?? now()
        rows[index].openedAt = openedAt
        return NotificationOpened(id: id, openedAt: openedAt)
    }

    private func markAllSeen() async throws -> Counts {
        try await arrive(.markAllSeen)
        let at = now()
        for index in rows.indices where isListed(rows[index]) && rows[index].item.seenAt == nil {
            rows[index].item.seenAt = at
        }
        broadcast(.counts(counts))
        return counts
    }

    private func delete(id: String) async throws {
        try await arrive(.delete(id: id))
        guard let index = visibleIndex(id: id) else { throw Self.notFound }
        guard !rows[index].deleted else { return }
        rows[index].deleted = true
        let item = rows[index].item
        broadcast(.updated(NotificationChange(id: id, readAt: item.readAt, seenAt: item.seenAt, deleted: true)))
        broadcast(.counts(counts))
    }

    // MARK: - The live stream

    /// How many live streams are open (a subscriber that ended or was cancelled is gone).
    public var openStreamCount: Int { streams.count }

    /// Sends `event` to every open stream, as the server's live hub does.
    public func emit(_ event: LiveEvent) {
        broadcast(event)
    }

    /// Ends every open stream, with `error` (such as `unauthenticated`) or cleanly.
    public func endStreams(throwing error: HeraldAPIError? = nil) {
        let ending = streams.values
        streams = [:]
        for continuation in ending { continuation.finish(throwing: error) }
    }

    private func openStream() -> AsyncThrowingStream<LiveEvent, any Error> {
        calls.append(.liveEvents)
        let (stream, continuation) = AsyncThrowingStream<LiveEvent, any Error>.makeStream()
        nextStreamID += 1
        let id = nextStreamID
        streams[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.streams[id] = nil }
        }
        // The server sends fresh counts to a stream that opens.
        continuation.yield(.counts(counts))
        return stream
    }

    private func broadcast(_ event: LiveEvent) {
        for continuation in streams.values { continuation.yield(event) }
    }

    // MARK: - Data

    /// Adds a newer notification for `recipient` (the signed-in ``user`` unless told), as a
    /// publisher would. The user's open streams hear of their own rows only.
    public func publish(_ notification: InboxNotification, to recipient: String? = nil) {
        let row = store(notification, for: recipient ?? user)
        guard isListed(row) else { return }
        broadcast(.created(Self.listed(row.item)))
        broadcast(.counts(counts))
    }

    /// The user's counts: unread (dots) and unseen (badge) among listed rows.
    public var counts: Counts {
        Counts(
            unread: listedRows.count { $0.item.readAt == nil }, unseen: listedRows.count { $0.item.seenAt == nil })
    }

    /// The stored notification with `id` (with its detail), deleted, hidden and other users'
    /// ones included.
    public func stored(id: String) -> InboxNotification? {
        rows.first { $0.item.id == id }?.item
    }

    /// When the notification with `id` was first opened from its push; `nil` while never.
    public func openedAt(id: String) -> Date? {
        rows.first { $0.item.id == id }?.openedAt
    }

    /// Whether the notification with `id` is soft-deleted.
    public func isDeleted(id: String) -> Bool {
        rows.first { $0.item.id == id }?.deleted ?? false
    }

    /// The calls made to `endpoint`.
    public func calls(to endpoint: Endpoint) -> [Call] {
        calls.filter { $0.endpoint == endpoint }
    }

    @discardableResult
    private func store(_ notification: InboxNotification, for owner: String) -> Row {
        var item = notification
        item.category = catalog.category(forType: item.type)
        item.hasDetail = item.detail.map { !$0.isEmpty } ?? false
        lastSeq += 1
        let row = Row(seq: lastSeq, owner: owner, item: item, hidden: catalog.isHidden(type: item.type))
        rows.append(row)
        return row
    }

    /// The signed-in user's rows the list shows, oldest first.
    private var listedRows: [Row] {
        rows.filter(isListed)
    }

    /// Whether `row` is the signed-in user's, not hidden and not deleted.
    private func isListed(_ row: Row) -> Bool {
        row.owner == user && !row.hidden && !row.deleted
    }

    /// Where the signed-in user's row with `id` is, deleted or not; `nil` when hidden.
    private func visibleIndex(id: String) -> Int? {
        rows.firstIndex { $0.item.id == id && $0.owner == user && !$0.hidden }
    }

    /// The list form of a row: no detail.
    private static func listed(_ item: InboxNotification) -> InboxNotification {
        var item = item
        item.detail = nil
        return item
    }

    private static let notFound = HeraldAPIError.notFound("No such notification.")

    private static func badRequest(_ code: String, _ message: String) -> HeraldAPIError {
        HeraldAPIError(kind: .rejected, status: 400, code: code, message: message)
    }

    // MARK: - Hanging and failing calls

    /// Makes the next call to `endpoint` (after those already scripted) hang or fail. Not for
    /// ``Endpoint/liveEvents``: end streams with ``endStreams(throwing:)``.
    public func script(_ endpoint: Endpoint, _ script: Script) {
        precondition(endpoint != .liveEvents, "end live streams with endStreams(throwing:)")
        scripts[endpoint, default: []].append(script)
    }

    /// How many calls to `endpoint` are hanging.
    public func hangingCount(_ endpoint: Endpoint) -> Int {
        waiting.count { $0.endpoint == endpoint }
    }

    /// Lets the oldest hanging call to `endpoint` go on; it answers from the data as it is now.
    public func release(_ endpoint: Endpoint, sourceLocation: SourceLocation = #_sourceLocation) {
        takeWaiting(endpoint, sourceLocation: sourceLocation)?.resume()
    }

    /// Ends the oldest hanging call to `endpoint` with `error`.
    public func fail(
        _ endpoint: Endpoint, with error: HeraldAPIError, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        takeWaiting(endpoint, sourceLocation: sourceLocation)?.resume(throwing: error)
    }

    /// Records the call and applies its script, if any.
    private func arrive(_ call: Call) async throws {
        calls.append(call)
        guard let script = scripts[call.endpoint]?.first else { return }
        scripts[call.endpoint]?.removeFirst()
        switch script {
        case .fail(let error):
            throw error
        case .hang:
            nextWaitingID += 1
            let id = nextWaitingID
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    waiting.append(Waiting(id: id, endpoint: call.endpoint, continuation: continuation))
                }
            } onCancel: {
                Task { @MainActor in self.cancelWaiting(id: id) }
            }
        }
    }

    private func takeWaiting(_ endpoint: Endpoint, sourceLocation: SourceLocation)
        -> CheckedContinuation<Void, any Error>?
    {
        guard let index = waiting.firstIndex(where: { $0.endpoint == endpoint }) else {
            Issue.record("FakeInboxBackend: no \(endpoint) call is hanging", sourceLocation: sourceLocation)
            return nil
        }
        return waiting.remove(at: index).continuation
    }

    private func cancelWaiting(id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
