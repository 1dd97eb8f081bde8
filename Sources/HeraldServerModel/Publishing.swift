import FoundationEssentials
import HeraldModel

/// `POST /v1/notifications`: one notification for each recipient.
public struct PublishRequest: Codable, Sendable, Equatable {
    public var recipients: [String]
    public var type: String
    public var title: String
    public var body: String
    public var data: [String: String]?
    public var deepLink: String?
    public var detail: NotificationDetail?
    public var push: PushOptions?
    /// Publish later, at this time (RFC 3339): nothing of it is visible or pushed before.
    public var sendAt: Date?
    /// Publish later, at this wall-clock time in each recipient's time zone.
    public var deliverAt: DeliverAt?
    /// The integration (or project, or bot) it comes from: what a user can mute.
    public var source: NotificationSource?

    public init(
        recipients: [String], type: String, title: String, body: String, data: [String: String]? = nil,
        deepLink: String? = nil, detail: NotificationDetail? = nil, push: PushOptions? = nil, sendAt: Date? = nil,
        deliverAt: DeliverAt? = nil, source: NotificationSource? = nil
    ) {
        self.sendAt = sendAt
        self.deliverAt = deliverAt
        self.source = source
        self.recipients = recipients
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.detail = detail
        self.push = push
    }
}

/// `deliverAt` of a publish: `localTime` (`HH:mm`) in each recipient's time zone (their
/// preferences' `timeZone`, else their newest device's, else UTC), the next time it comes.
public struct DeliverAt: Codable, Sendable, Equatable {
    public var localTime: String
    public init(localTime: String) { self.localTime = localTime }

    enum CodingKeys: String, CodingKey, CaseIterable { case localTime }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "deliverAt")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        localTime = try container.decode(String.self, forKey: .localTime)
    }
}

/// One created notification: `id` belongs to `recipient`; `sendAt` when it is scheduled (it
/// appears, and pushes, then).
public struct PublishedNotification: Codable, Sendable, Equatable {
    public var id: String
    public var recipient: String
    public var sendAt: Date?
    public init(id: String, recipient: String, sendAt: Date? = nil) {
        self.id = id
        self.recipient = recipient
        self.sendAt = sendAt
    }
}

/// 202 answer of `POST /v1/notifications`, in recipient order: the message (the publish as one
/// thing, `GET /v1/messages/{messageId}`) and each recipient's notification.
public struct PublishResponse: Codable, Sendable, Equatable {
    /// `nil` only in the replay of a publish made before messages existed.
    public var messageId: String?
    public var notifications: [PublishedNotification]
    public init(messageId: String?, notifications: [PublishedNotification]) {
        self.messageId = messageId
        self.notifications = notifications
    }
}

/// `POST /v1/previews`: the notification fields of a publish without its audience, as the
/// console's compose form holds them while someone types.
public struct NotificationDraft: Codable, Sendable, Equatable {
    public var type: String
    public var title: String
    public var body: String
    public var data: [String: String]?
    public var deepLink: String?
    public var detail: NotificationDetail?
    public var push: PushOptions?

    public init(
        type: String, title: String, body: String, data: [String: String]? = nil, deepLink: String? = nil,
        detail: NotificationDetail? = nil, push: PushOptions? = nil
    ) {
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.detail = detail
        self.push = push
    }

    /// Checks the fields as a publish checks them; throws the first ``ValidationError`` found.
    public func validate() throws {
        try PublishRequest.validateContent(
            type: type, title: title, body: body, data: data, deepLink: deepLink, detail: detail, push: push)
    }
}

/// Where a notification came from (an integration, a project, a bot), as its publisher names it:
/// the unit a user mutes (`mutedSources`).
public struct NotificationSource: Codable, Sendable, Equatable, Hashable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
