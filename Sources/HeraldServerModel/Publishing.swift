import Foundation
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

    public init(
        recipients: [String], type: String, title: String, body: String, data: [String: String]? = nil,
        deepLink: String? = nil, detail: NotificationDetail? = nil, push: PushOptions? = nil
    ) {
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

/// One created notification: `id` belongs to `recipient`.
public struct PublishedNotification: Codable, Sendable, Equatable {
    public var id: String
    public var recipient: String
    public init(id: String, recipient: String) {
        self.id = id
        self.recipient = recipient
    }
}

/// 202 answer of `POST /v1/notifications`, in recipient order.
public struct PublishResponse: Codable, Sendable, Equatable {
    public var notifications: [PublishedNotification]
    public init(notifications: [PublishedNotification]) { self.notifications = notifications }
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
