#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One notification as the app sees it in the inbox.
public struct InboxNotification: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var type: String
    /// Catalog category (`orders`, `rewards`, ...); `nil` for types shown under All only.
    public var category: String?
    public var title: String
    public var body: String
    public var data: [String: String]
    public var deepLink: String?
    /// Whether the notification has a rich detail page.
    public var hasDetail: Bool
    public var createdAt: Date
    public var readAt: Date?
    public var seenAt: Date?
    /// Rich content; present only on the detail call.
    public var detail: NotificationDetail?

    public init(
        id: String, type: String, category: String?, title: String, body: String,
        data: [String: String] = [:], deepLink: String? = nil, hasDetail: Bool = false,
        createdAt: Date, readAt: Date? = nil, seenAt: Date? = nil, detail: NotificationDetail? = nil
    ) {
        self.id = id
        self.type = type
        self.category = category
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.hasDetail = hasDetail
        self.createdAt = createdAt
        self.readAt = readAt
        self.seenAt = seenAt
        self.detail = detail
    }
}

/// The rich detail page of a notification.
public struct NotificationDetail: Codable, Sendable, Equatable {
    public var heroImageURL: String?
    /// HTML reduced to the safe subset before it is stored.
    public var html: String?
    public var actionLabel: String?
    /// An in-app path such as `/orders/123`.
    public var actionPath: String?
    /// An absolute `https` URL.
    public var actionURL: String?

    public init(
        heroImageURL: String? = nil, html: String? = nil, actionLabel: String? = nil,
        actionPath: String? = nil, actionURL: String? = nil
    ) {
        self.heroImageURL = heroImageURL
        self.html = html
        self.actionLabel = actionLabel
        self.actionPath = actionPath
        self.actionURL = actionURL
    }

    /// True when nothing in the detail would render.
    public var isEmpty: Bool {
        heroImageURL == nil && html == nil && actionLabel == nil && actionPath == nil && actionURL == nil
    }
}

/// One page of the inbox, newest first.
public struct NotificationPage: Codable, Sendable, Equatable {
    public var items: [InboxNotification]
    /// Opaque; `nil` on the last page.
    public var nextCursor: String?
    public var unreadCount: Int
    public var unseenCount: Int

    public init(items: [InboxNotification], nextCursor: String?, unreadCount: Int, unseenCount: Int) {
        self.items = items
        self.nextCursor = nextCursor
        self.unreadCount = unreadCount
        self.unseenCount = unseenCount
    }
}

/// Unread (dot) and unseen (badge) counts of one user.
public struct Counts: Codable, Sendable, Equatable {
    public var unread: Int
    public var unseen: Int

    public init(unread: Int, unseen: Int) {
        self.unread = unread
        self.unseen = unseen
    }
}

/// `POST /v1/me/notifications/{id}/opened`: the notification was opened from its push; the
/// first open is kept, so `openedAt` is the same on every later call.
public struct NotificationOpened: Codable, Sendable, Equatable {
    public var id: String
    public var openedAt: Date

    public init(id: String, openedAt: Date) {
        self.id = id
        self.openedAt = openedAt
    }
}
