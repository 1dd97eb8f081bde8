import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

/// What a publisher reads of its notifications across users (the console's Messages and Users
/// pages): `GET /v1/notifications` newest first with filters, `GET /v1/notifications/{id}` one
/// as stored, hidden and deleted ones included.
struct NotificationRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/notifications", list)
            group.add(.GET, "/v1/notifications/{id}", show)
        }
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let query = try Self.query(request)
        let page = try await services.store.notifications(query)
        return try Response.json(
            PageAnswer(
                items: page.items.map(NotificationSummaryItem.init),
                nextCursor: page.hasMore ? page.lastSeq.map(InboxCursor.encode(seq:)) : nil))
    }

    @Sendable func show(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let stored = try await services.store.publishedNotification(id: context.parameter("id")) else {
            throw HTTPError.notificationNotFound
        }
        return try Response.json(PublishedNotificationItem(stored))
    }

    /// The filters of the query string, each checked: `userId`, `type`, `status`, `from` and
    /// `until` (RFC 3339), `cursor`, `limit`.
    static func query(_ request: Request) throws -> NotificationQuery {
        let value = request.filter
        var query = NotificationQuery(limit: try InboxRoutes.limit(request.query["limit"]))
        if let userID = value("userId") {
            try Validate.userID(userID, field: "userId")
            query.userID = userID
        }
        if let type = value("type") {
            try Validate.type(type, field: "type")
            query.type = type
        }
        if let raw = value("status") {
            guard let status = DeliveryStatus(rawValue: raw) else {
                let statuses = DeliveryStatus.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError(
                    400, code: "invalid_status", message: "`status` must be one of \(statuses).", field: "status")
            }
            query.status = status
        }
        query.createdFrom = try request.timeFilter("from")
        query.createdBefore = try request.timeFilter("until")
        query.beforeSeq = try InboxRoutes.beforeSeq(request.query["cursor"])
        return query
    }
}

/// One notification in the publisher's list: its inbox states and how its deliveries stand.
struct NotificationSummaryItem: Encodable {
    var id: String
    var userId: String
    var type: String
    var category: String?
    var title: String
    var body: String
    var hidden: Bool
    var createdAt: Date
    var readAt: Date?
    var seenAt: Date?
    var deletedAt: Date?
    var deliveries: DeliveryTallyItem

    init(_ summary: NotificationSummary) {
        id = summary.id
        userId = summary.userID
        type = summary.type
        category = summary.category
        title = summary.title
        body = summary.body
        hidden = summary.hidden
        createdAt = summary.createdAt
        readAt = summary.readAt
        seenAt = summary.seenAt
        deletedAt = summary.deletedAt
        deliveries = DeliveryTallyItem(summary.deliveries)
    }
}

/// Deliveries per status, with their total.
struct DeliveryTallyItem: Encodable {
    var total: Int
    var queued: Int
    var sending: Int
    var sent: Int
    var failed: Int
    var skipped: Int
    var expired: Int
    var deferred: Int
    var digested: Int

    init(_ tally: DeliveryTally) {
        total = tally.total
        queued = tally.queued
        sending = tally.sending
        sent = tally.sent
        failed = tally.failed
        skipped = tally.skipped
        expired = tally.expired
        deferred = tally.deferred
        digested = tally.digested
    }
}

/// One notification as stored: everything its publisher sent, and its recipient's read and
/// seen marks.
struct PublishedNotificationItem: Encodable {
    var id: String
    var userId: String
    var type: String
    var category: String?
    var title: String
    var body: String
    var data: [String: String]
    var deepLink: String?
    var detail: NotificationDetail?
    var push: PushOptions?
    var hidden: Bool
    var deleted: Bool
    var createdAt: Date
    var readAt: Date?
    var seenAt: Date?

    init(_ stored: StoredNotification) {
        let notification = stored.notification
        id = notification.id
        userId = stored.userID
        type = notification.type
        category = notification.category
        title = notification.title
        body = notification.body
        data = notification.data
        deepLink = notification.deepLink
        detail = notification.detail
        push = stored.push
        hidden = stored.hidden
        deleted = stored.deleted
        createdAt = notification.createdAt
        readAt = notification.readAt
        seenAt = notification.seenAt
    }
}
