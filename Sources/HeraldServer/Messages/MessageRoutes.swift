import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

/// A publish (or a broadcast) as one thing: `GET /v1/messages` newest first with filters,
/// `GET /v1/messages/{id}` with its funnel, `DELETE /v1/messages/{id}` cancels what has not gone out.
struct MessageRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/messages", list)
            group.add(.GET, "/v1/messages/{id}", show)
            group.add(.DELETE, "/v1/messages/{id}", cancel)
        }
    }

    static let messageNotFound = HTTPError(404, code: "not_found", message: "No message has this id.")

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let page = try await services.store.messages(try Self.query(request))
        return try Response.json(
            PageAnswer(
                items: page.items.map { MessageItem($0.record, $0.funnel) },
                nextCursor: page.hasMore ? page.items.last.map { InboxCursor.encode(seq: $0.record.seq) } : nil))
    }

    @Sendable func show(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let message = try await services.store.message(id: context.parameter("id")) else {
            throw Self.messageNotFound
        }
        return try Response.json(MessageItem(message.record, message.funnel))
    }

    @Sendable func cancel(_ request: Request, _ context: RequestContext) async throws -> Response {
        let id = context.parameter("id")
        guard let cancellation = try await services.store.cancelMessage(id: id, now: services.now()) else {
            throw Self.messageNotFound
        }
        return try Response.json(MessageCancelled(id: id, cancellation))
    }

    /// The filters of the query string, each checked: `type`, `sourceId`, `kind`
    /// (`publish`, `broadcast`), `status` (`scheduled`), `from` and `until` (RFC 3339), `cursor`, `limit`.
    static func query(_ request: Request) throws -> MessageQuery {
        let value = request.filter
        var query = MessageQuery(limit: try InboxRoutes.limit(request.query["limit"]))
        if let type = value("type") {
            try Validate.type(type, field: "type")
            query.type = type
        }
        if let source = value("sourceId") {
            try Validate.userID(source, field: "sourceId")
            query.sourceID = source
        }
        if let raw = value("kind") {
            guard let kind = MessageKind(rawValue: raw) else {
                throw HTTPError(
                    400, code: "invalid_kind", message: "`kind` must be publish or broadcast.", field: "kind")
            }
            query.kind = kind
        }
        if let status = value("status") {
            guard status == "scheduled" else {
                throw HTTPError(
                    400, code: "invalid_status", message: "`status` may only be scheduled.", field: "status")
            }
            query.scheduledOnly = true
        }
        query.createdFrom = try request.timeFilter("from")
        query.createdBefore = try request.timeFilter("until")
        query.beforeSeq = try InboxRoutes.beforeSeq(request.query["cursor"])
        return query
    }
}

/// One message with its funnel.
struct MessageItem: Encodable {
    var id: String
    var kind: String
    var type: String
    var title: String
    var category: String?
    var source: NotificationSource?
    var sendAt: Date?
    var deliverAt: DeliverAt?
    var createdAt: Date
    var cancelledAt: Date?
    /// When nothing of it was left to go out (set within a second or so of its last push's end).
    var completedAt: Date?
    /// `scheduled` (some notification waits for its time), `sending` (some push has not reached a
    /// final state), `completed`, or `cancelled`.
    var status: String
    var funnel: FunnelItem

    init(_ record: MessageRecord, _ funnel: MessageFunnel) {
        id = record.id
        kind = record.kind.rawValue
        type = record.type
        title = record.title
        category = record.category
        source = record.source
        sendAt = record.sendAt
        deliverAt = record.deliverAtLocalTime.map(DeliverAt.init(localTime:))
        createdAt = record.createdAt
        cancelledAt = record.cancelledAt
        completedAt = record.completedAt
        self.funnel = FunnelItem(funnel)
        status = Self.status(record, funnel)
    }

    static func status(_ record: MessageRecord, _ funnel: MessageFunnel) -> String {
        if record.cancelledAt != nil { return "cancelled" }
        if funnel.scheduled > 0 { return "scheduled" }
        let pending = [DeliveryStatus.queued, .sending, .deferred].reduce(0) { $0 + (funnel.pushes[$1] ?? 0) }
        return pending > 0 ? "sending" : "completed"
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, type, title, category, source, sendAt, deliverAt, createdAt, cancelledAt, completedAt, status
        case funnel
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(category, forKey: .category)
        try container.encode(source, forKey: .source)
        try container.encode(sendAt, forKey: .sendAt)
        try container.encode(deliverAt, forKey: .deliverAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(cancelledAt, forKey: .cancelledAt)
        try container.encode(completedAt, forKey: .completedAt)
        try container.encode(status, forKey: .status)
        try container.encode(funnel, forKey: .funnel)
    }
}

/// A message's funnel: recipients, what is still scheduled, pushes by outcome, opens, reads.
struct FunnelItem: Encodable {
    var recipients: Int
    var scheduled: Int
    var published: Int
    var pushes: [String: Int]
    var skipped: [String: Int]
    var deferred: [String: Int]
    var opened: Int
    var read: Int

    init(_ funnel: MessageFunnel) {
        recipients = funnel.recipients
        scheduled = funnel.scheduled
        published = funnel.published
        var pushes = Dictionary(uniqueKeysWithValues: funnel.pushes.map { ($0.key.rawValue, $0.value) })
        pushes["total"] = funnel.pushes.values.reduce(0, +)
        self.pushes = pushes
        skipped = funnel.skippedByReason
        deferred = funnel.deferredByReason
        opened = funnel.opened
        read = funnel.read
    }
}

/// `DELETE /v1/messages/{id}`'s answer: how much it cancelled.
struct MessageCancelled: Encodable {
    var id: String
    /// Scheduled notifications and pushes cancelled.
    var cancelled: Int
    var scheduled: Int
    var pushes: Int
    var cancelledAt: Date

    init(id: String, _ cancellation: MessageCancellation) {
        self.id = id
        scheduled = cancellation.scheduled
        pushes = cancellation.pushes
        cancelled = cancellation.scheduled + cancellation.pushes
        cancelledAt = cancellation.cancelledAt
    }
}
