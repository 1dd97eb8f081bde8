import FoundationEssentials
import HeraldModel

/// Who a broadcast reaches.
public enum BroadcastAudience: Codable, Sendable, Equatable {
    /// Every user Herald knows: anyone with a device, stored preferences or an inbox row.
    case all
    /// The listed user ids; a repeated id is reached once.
    case users([String])

    private enum CodingKeys: String, CodingKey { case userIds }

    /// `"all"` or `{"userIds": [...]}`.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard text == "all" else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription: #"expected "all" or {"userIds": ["..."]}."#))
            }
            self = .all
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .users(try container.decode([String].self, forKey: .userIds))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .all:
            var single = encoder.singleValueContainer()
            try single.encode("all")
        case .users(let ids):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ids, forKey: .userIds)
        }
    }
}

/// `POST /v1/broadcasts`: the notification fields of a ``PublishRequest`` for an audience
/// instead of recipients. The fan-out runs as a background job.
public struct BroadcastRequest: Codable, Sendable, Equatable {
    public var audience: BroadcastAudience
    public var type: String
    public var title: String
    public var body: String
    public var data: [String: String]?
    public var deepLink: String?
    public var detail: NotificationDetail?
    public var push: PushOptions?
    /// The integration it comes from (what a user can mute), as on a publish.
    public var source: NotificationSource?

    public init(
        audience: BroadcastAudience, type: String, title: String, body: String, data: [String: String]? = nil,
        deepLink: String? = nil, detail: NotificationDetail? = nil, push: PushOptions? = nil,
        source: NotificationSource? = nil
    ) {
        self.source = source
        self.audience = audience
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.detail = detail
        self.push = push
    }

    /// Checks the audience and the notification fields against ``Limits``; throws the first
    /// ``ValidationError`` found. Repeated user ids are allowed (each user is reached once).
    public func validate() throws {
        if case .users(let ids) = audience {
            let field = "audience.userIds"
            if ids.isEmpty {
                throw ValidationError(field: field, code: "required", message: "\(field) must list at least 1 user id.")
            }
            if ids.count > Limits.broadcastUsersMax {
                throw ValidationError.tooMany(field, max: Limits.broadcastUsersMax, what: "user ids")
            }
            for (index, id) in ids.enumerated() {
                try Check.userId(id, "\(field)[\(index)]")
            }
        }
        try PublishRequest.validateContent(
            type: type, title: title, body: body, data: data, deepLink: deepLink, detail: detail, push: push)
        try PublishRequest.validate(source: source)
    }
}
