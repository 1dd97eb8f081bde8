import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldStore

/// Webhook subscriptions: create (the signing secret is in the answer once), list, read, delete,
/// and each subscription's deliveries with their attempts.
struct WebhookRoutes {
    let services: Services
    let settings: WebhookSettings

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/webhooks", create)
            group.add(.GET, "/v1/webhooks", list)
            group.add(.GET, "/v1/webhooks/{id}", show)
            group.add(.DELETE, "/v1/webhooks/{id}", delete)
            group.add(.GET, "/v1/webhooks/{id}/deliveries", deliveries)
        }
    }

    @Sendable func create(_ request: Request, _ context: RequestContext) async throws -> Response {
        let body = try JSONBody.decode(WebhookCreateRequest.self, from: request)
        let url: WebhookURL
        do throws(WebhookURL.Invalid) {
            url = try WebhookURL(body.url)
        } catch {
            throw HTTPError(400, code: "invalid_url", message: error.message, field: "url")
        }
        let events = try Self.events(body.events)
        if !settings.allowPrivateAddresses {
            do throws(WebhookClient.Failure) {
                _ = try await WebhookClient.checkedAddresses(of: url, allowingPrivate: false)
            } catch {
                throw HTTPError(
                    400, code: error.kind == .refused ? "url_refused" : "url_unresolvable",
                    message: error.kind == .refused
                        ? "`url` is refused: \(error.detail). Webhooks reach only public addresses unless the server runs with --webhook-allow-private-addresses."
                        : "`url` cannot be reached: \(error.detail).",
                    field: "url")
            }
        }
        let record = WebhookRecord(
            id: "wh_" + Hex.encode(SecureRandom.bytes(count: 8)), url: body.url, events: events,
            secret: WebhookSignature.newSecret(), createdAt: services.now())
        switch try await services.store.createWebhook(record, maxCount: settings.maxSubscriptions) {
        case .created(let stored):
            var response = try Response.json(WebhookItem(stored, showingSecret: true), status: 201)
            response.headers["Location"] = "/v1/webhooks/\(stored.id)"
            return response
        case .limitReached(let count):
            throw HTTPError(
                409, code: "too_many_webhooks",
                message:
                    "This server has \(count) webhook subscriptions, its limit (--max-webhooks); delete one first.")
        }
    }

    /// The event types named, each once in the order given; 400 for none or an unknown one.
    static func events(_ names: [String]) throws -> [WebhookEventType] {
        guard !names.isEmpty else {
            throw HTTPError(
                400, code: "invalid_events", message: "`events` must name at least one event: \(known).",
                field: "events")
        }
        var events: [WebhookEventType] = []
        for (index, name) in names.enumerated() {
            guard let type = WebhookEventType(rawValue: name) else {
                throw HTTPError(
                    400, code: "unknown_event",
                    message: "`events[\(index)]` is \"\(name.prefix(100))\", not an event Herald sends: \(known).",
                    field: "events[\(index)]")
            }
            if !events.contains(type) { events.append(type) }
        }
        return events
    }

    private static let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let webhooks = try await services.store.webhooks()
        return try Response.json(WebhookList(items: webhooks.map { WebhookItem($0, showingSecret: false) }))
    }

    @Sendable func show(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let webhook = try await services.store.webhook(id: context.parameter("id")) else {
            throw Self.notFound
        }
        return try Response.json(WebhookItem(webhook, showingSecret: false))
    }

    /// 204; the subscription's pending deliveries are dropped with it.
    @Sendable func delete(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard try await services.store.deleteWebhook(id: context.parameter("id")) else { throw Self.notFound }
        return .noContent()
    }

    @Sendable func deliveries(_ request: Request, _ context: RequestContext) async throws -> Response {
        let limit = try InboxRoutes.limit(request.query["limit"])
        let beforeSeq = try InboxRoutes.beforeSeq(request.query["cursor"])
        guard
            let page = try await services.store.webhookDeliveries(
                webhookID: context.parameter("id"), beforeSeq: beforeSeq, limit: limit)
        else { throw Self.notFound }
        return try Response.json(
            PageAnswer(
                items: page.items.map(WebhookDeliveryItem.init),
                nextCursor: page.nextBeforeSeq.map(InboxCursor.encode(seq:))))
    }

    static let notFound = HTTPError(404, code: "not_found", message: "No webhook subscription has this id.")
}

/// The body of `POST /v1/webhooks`; an unknown key is a 400 naming it.
struct WebhookCreateRequest: Decodable {
    var url: String
    var events: [String]

    enum CodingKeys: String, CodingKey, CaseIterable { case url, events }

    init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "webhook")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        events = try container.decode([String].self, forKey: .events)
    }
}

/// Every subscription, oldest first (at most `--max-webhooks`: one page).
struct WebhookList: Encodable {
    var items: [WebhookItem]
}

/// A subscription as its publisher sees it; `secret` only in the answer that created it.
struct WebhookItem: Encodable {
    var id: String
    var url: String
    var events: [String]
    var createdAt: Date
    var secret: String?

    init(_ record: WebhookRecord, showingSecret: Bool) {
        id = record.id
        url = record.url
        events = record.events.map(\.rawValue)
        createdAt = record.createdAt
        secret = showingSecret ? record.secret : nil
    }
}

/// One event's delivery to a subscription, with every attempt.
struct WebhookDeliveryItem: Encodable {
    struct Attempt: Encodable {
        var attempt: Int
        var at: Date
        var durationMs: Int
        var httpStatus: Int?
        var error: String?

        enum CodingKeys: String, CodingKey { case attempt, at, durationMs, httpStatus, error }

        // Unset fields are spelled out as `null`.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(attempt, forKey: .attempt)
            try container.encode(at, forKey: .at)
            try container.encode(durationMs, forKey: .durationMs)
            try container.encode(httpStatus, forKey: .httpStatus)
            try container.encode(error, forKey: .error)
        }
    }

    var id: String
    var eventId: String
    var type: String
    var status: String
    var nextAttemptAt: Date?
    var createdAt: Date
    var updatedAt: Date
    var attempts: [Attempt]
    /// The body POSTed, as JSON.
    var event: JSONValue?

    init(_ record: WebhookDeliveryRecord) {
        id = record.id
        eventId = record.eventID
        type = record.type.rawValue
        status = record.status.rawValue
        nextAttemptAt = record.nextAttemptAt
        createdAt = record.createdAt
        updatedAt = record.updatedAt
        attempts = record.attempts.map {
            Attempt(
                attempt: $0.attempt, at: $0.at, durationMs: $0.durationMilliseconds, httpStatus: $0.httpStatus,
                error: $0.error)
        }
        event = try? JSONDecoder().decode(JSONValue.self, from: Data(record.body.utf8))
    }

    enum CodingKeys: String, CodingKey {
        case id, eventId, type, status, nextAttemptAt, createdAt, updatedAt, attempts, event
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(eventId, forKey: .eventId)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(event, forKey: .event)
    }
}
