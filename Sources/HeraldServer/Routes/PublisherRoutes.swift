import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

/// `POST /v1/notifications`: one notification per recipient, written with its live events
/// in one transaction, and at most once per `Idempotency-Key`.
struct PublisherRoutes {
    let services: Services

    /// How long an `Idempotency-Key` answers its first result.
    static let idempotencyWindow: TimeInterval = 24 * 3600
    static let maxIdempotencyKeyLength = 255

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.POST, "/v1/notifications", publish)
        }
    }

    @Sendable func publish(_ request: Request, _ context: RequestContext) async throws -> Response {
        let key = try context.publisher
        let idempotencyKey = try Self.idempotencyKey(request)
        var publish = try JSONBody.decode(PublishRequest.self, from: request)
        try publish.validate()
        if let html = publish.detail?.html {
            publish.detail?.html = HTMLSanitizer.sanitize(html)
        }
        try Self.checkStoredSize(publish, limit: services.publisherLimits.maxPublishBytes)
        let now = services.now()
        try publish.validateSchedule(now: now)
        let rules = services.appConfig.rules
        let catalog = rules.catalog
        try PushSizeCheck.check(NotificationDraft(publish), catalog: catalog)
        let category = catalog.category(forType: publish.type)
        let message = NewMessage(
            id: NewMessage.makeID(), apiKeyID: key.id, type: publish.type, title: publish.title, category: category,
            source: publish.source, schedule: Self.schedule(publish), createdAt: now)
        let notifications = publish.recipients.map { recipient in
            NewNotification(
                id: TimeOrderedID.make(), userID: recipient, type: publish.type, category: category,
                hidden: catalog.isHidden(type: publish.type), title: publish.title, body: publish.body,
                data: publish.data ?? [:], deepLink: publish.deepLink, detail: publish.detail, push: publish.push,
                messageID: message.id, source: publish.source, createdAt: now)
        }
        let claim = try idempotencyKey.map { idempotencyKey in
            IdempotencyClaim(
                apiKeyID: key.id, key: idempotencyKey, requestHash: try Self.fingerprint(publish),
                notBefore: now.addingTimeInterval(-Self.idempotencyWindow))
        }
        switch try await services.store.publish(notifications, message: message, rules: rules, idempotency: claim) {
        case .created:
            // The store's change feed tells the recipients' open streams once this commits.
            if publish.push?.send == true { services.deliveryWake.wake() }
            let published = notifications.map { PublishedNotification(id: $0.id, recipient: $0.userID) }
            return try Response.json(PublishResponse(messageId: message.id, notifications: published), status: 202)
        case .scheduled(let times):
            services.attentionWake.wake()
            let published = zip(notifications, times).map {
                PublishedNotification(id: $0.id, recipient: $0.userID, sendAt: $1)
            }
            return try Response.json(PublishResponse(messageId: message.id, notifications: published), status: 202)
        case .replayed(let answer):
            var response = try Response.json(answer, status: 202)
            response.headers["Idempotent-Replayed"] = "true"
            return response
        case .conflict:
            throw HTTPError(
                422, code: "idempotency_key_reused",
                message: "This Idempotency-Key was used in the last 24 hours with a different request body.")
        }
    }

    /// When the publish's notifications appear: `sendAt`, `deliverAt`, or now (nil).
    static func schedule(_ publish: PublishRequest) -> MessageSchedule? {
        if let sendAt = publish.sendAt { return .at(sendAt) }
        if let deliverAt = publish.deliverAt { return .localTime(deliverAt.localTime) }
        return nil
    }

    /// The request's `Idempotency-Key`, checked; `nil` without one. Broadcasts take it too.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let raw = request.headers["Idempotency-Key"] else { return nil }
        let key = raw.trimming(where: \.isSpaceOrTab)
        guard !key.isEmpty, key.count <= maxIdempotencyKeyLength,
            key.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E })
        else {
            throw HTTPError(
                400, code: "invalid_idempotency_key",
                message: "Idempotency-Key must be 1 to \(maxIdempotencyKeyLength) visible ASCII characters.")
        }
        return key
    }

    /// The UTF-8 bytes one recipient's notification stores of what the publisher sent: title,
    /// body, `data` keys and values, deep link and detail fields (the HTML as sanitized).
    static func storedBytes(_ publish: PublishRequest) -> Int {
        var bytes = publish.title.utf8.count + publish.body.utf8.count + (publish.deepLink?.utf8.count ?? 0)
        for (key, value) in publish.data ?? [:] { bytes += key.utf8.count + value.utf8.count }
        if let detail = publish.detail {
            for field in [detail.heroImageURL, detail.html, detail.actionLabel, detail.actionPath, detail.actionURL] {
                bytes += field?.utf8.count ?? 0
            }
        }
        return bytes
    }

    /// 413 `publish_too_large` when recipients × ``storedBytes(_:)`` is over `limit`.
    static func checkStoredSize(_ publish: PublishRequest, limit: Int) throws {
        let each = storedBytes(publish)
        let total = publish.recipients.count * each
        guard total > limit else { return }
        throw HTTPError.payloadTooLarge(
            "This publish would store \(publish.recipients.count) recipients × \(each) bytes (title, body, data, "
                + "deepLink and detail) = \(total) bytes, over the limit of \(limit) bytes per publish "
                + "(--max-publish-bytes). Send fewer recipients per request or less content.",
            code: "publish_too_large")
    }

    /// A hash of the request's meaning, so whitespace and key order do not matter.
    private static func fingerprint(_ publish: PublishRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Hex.encode(SHA256.hash(Array(try encoder.encode(publish))))
    }
}
