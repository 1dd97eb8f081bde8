#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The inbox answers spell out `null` for unset optional fields (`readAt`, `nextCursor`, ...),
// so clients can tell "not set" from "not sent".

extension InboxNotification {
    enum CodingKeys: String, CodingKey {
        case id, type, category, title, body, data, deepLink, hasDetail, createdAt, readAt, seenAt, detail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(category, forKey: .category)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(data, forKey: .data)
        try container.encode(deepLink, forKey: .deepLink)
        try container.encode(hasDetail, forKey: .hasDetail)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(readAt, forKey: .readAt)
        try container.encode(seenAt, forKey: .seenAt)
        // The detail is present only on the detail call.
        try container.encodeIfPresent(detail, forKey: .detail)
    }
}

extension NotificationPage {
    enum CodingKeys: String, CodingKey {
        case items, nextCursor, unreadCount, unseenCount
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
        try container.encode(unreadCount, forKey: .unreadCount)
        try container.encode(unseenCount, forKey: .unseenCount)
    }
}
