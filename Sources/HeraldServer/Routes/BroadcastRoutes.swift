import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

/// `POST /v1/broadcasts` stores a broadcast and answers at once; the ``BroadcastRunner`` fans
/// it out in the background. `GET /v1/broadcasts/{id}` shows its progress, `GET /v1/broadcasts`
/// every broadcast, newest first.
struct BroadcastRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/broadcasts", create)
            group.add(.GET, "/v1/broadcasts", list)
            group.add(.GET, "/v1/broadcasts/{id}", show)
        }
    }

    @Sendable func create(_ request: Request, _ context: RequestContext) async throws -> Response {
        let key = try context.publisher
        let idempotencyKey = try PublisherRoutes.idempotencyKey(request)
        var broadcast = try JSONBody.decode(BroadcastRequest.self, from: request)
        try broadcast.validate()
        if let html = broadcast.detail?.html {
            broadcast.detail?.html = HTMLSanitizer.sanitize(html)
        }
        try PushSizeCheck.check(NotificationDraft(broadcast), catalog: services.appConfig.catalog)
        let now = services.now()
        let userIDs: [String]? =
            switch broadcast.audience {
            case .all: nil
            case .users(let ids): ids
            }
        let template = BroadcastTemplate(
            type: broadcast.type, title: broadcast.title, body: broadcast.body, data: broadcast.data ?? [:],
            deepLink: broadcast.deepLink, detail: broadcast.detail, push: broadcast.push, source: broadcast.source)
        let claim = try idempotencyKey.map { idempotencyKey in
            IdempotencyClaim(
                apiKeyID: key.id, key: idempotencyKey, requestHash: try Self.fingerprint(broadcast),
                notBefore: now.addingTimeInterval(-PublisherRoutes.idempotencyWindow))
        }
        let new = NewBroadcast(
            id: UUID().uuidString.lowercased(), apiKeyID: key.id, template: template, userIDs: userIDs,
            category: services.appConfig.catalog.category(forType: broadcast.type), createdAt: now)
        let maxActive = services.publisherLimits.maxActiveBroadcasts
        switch try await services.store.createBroadcast(
            new, idempotency: claim, maxActive: maxActive > 0 ? maxActive : nil)
        {
        case .created(let record):
            services.broadcastWake.wake()
            return try Self.accepted(record)
        case .replayed(let record):
            var response = try Self.accepted(record)
            response.headers["Idempotent-Replayed"] = "true"
            return response
        case .conflict:
            throw HTTPError(
                422, code: "idempotency_key_reused",
                message: "This Idempotency-Key was used in the last 24 hours with a different request body.")
        case .limitReached(let active):
            throw HTTPError.conflict(
                "This API key has \(active) broadcasts queued or running, the most it may have at once "
                    + "(--max-active-broadcasts \(maxActive)); send this one when one of them has completed "
                    + "(GET /v1/broadcasts shows their status).",
                code: "too_many_broadcasts")
        }
    }

    @Sendable func show(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let record = try await services.store.broadcast(id: context.parameter("id")) else {
            throw HTTPError(404, code: "not_found", message: "No broadcast has this id.")
        }
        return try Response.json(BroadcastItem(record))
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let limit = try InboxRoutes.limit(request.query["limit"])
        let beforeSeq = try InboxRoutes.beforeSeq(request.query["cursor"])
        let page = try await services.store.broadcasts(beforeSeq: beforeSeq, limit: limit)
        return try Response.json(
            PageAnswer(
                items: page.items.map(BroadcastItem.init),
                nextCursor: page.hasMore ? page.lastSeq.map(InboxCursor.encode(seq:)) : nil))
    }

    /// 202 with the broadcast as it stands and its address in `Location`.
    private static func accepted(_ record: BroadcastRecord) throws -> Response {
        var response = try Response.json(BroadcastItem(record), status: 202)
        response.headers["Location"] = "/v1/broadcasts/\(record.id)"
        return response
    }

    /// A hash of the request's meaning, so whitespace and key order do not matter.
    private static func fingerprint(_ broadcast: BroadcastRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Hex.encode(SHA256.hash(Array(try encoder.encode(broadcast))))
    }
}

/// A page of a publisher list (broadcasts, notifications), newest first; `nextCursor` is `null`
/// on the last page.
struct PageAnswer<Item: Encodable>: Encodable {
    var items: [Item]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

/// A broadcast as its publisher sees it. Unset fields are spelled out as `null`.
struct BroadcastItem: Encodable {
    var id: String
    var status: String
    var audience: String
    var total: Int?
    var processed: Int
    var failureReason: String?
    var createdAt: Date
    var startedAt: Date?
    var completedAt: Date?

    init(_ record: BroadcastRecord) {
        id = record.id
        status = record.status.rawValue
        audience = record.audience.rawValue
        total = record.total
        processed = record.processed
        failureReason = record.failureReason
        createdAt = record.createdAt
        startedAt = record.startedAt
        completedAt = record.completedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, messageId, status, audience, total, processed, failureReason, createdAt, startedAt, completedAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        // A broadcast is a message under the same id (GET /v1/messages/{id}).
        try container.encode(id, forKey: .messageId)
        try container.encode(status, forKey: .status)
        try container.encode(audience, forKey: .audience)
        try container.encode(total, forKey: .total)
        try container.encode(processed, forKey: .processed)
        try container.encode(failureReason, forKey: .failureReason)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(completedAt, forKey: .completedAt)
    }
}
