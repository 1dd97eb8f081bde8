import Foundation
import HeraldModel

/// A change to a notification, as `notification.updated` carries it.
public struct NotificationChange: Codable, Sendable, Equatable {
    public var id: String
    public var readAt: Date?
    public var seenAt: Date?
    public var deleted: Bool

    public init(id: String, readAt: Date? = nil, seenAt: Date? = nil, deleted: Bool = false) {
        self.id = id
        self.readAt = readAt
        self.seenAt = seenAt
        self.deleted = deleted
    }
}

/// One event of the live stream (`GET /v1/me/stream`).
public enum LiveEvent: Sendable, Equatable {
    /// `notification.created`: a new notification for this user.
    case created(InboxNotification)
    /// `notification.updated`: read, seen or deleted (possibly on another device).
    case updated(NotificationChange)
    /// `counts`: the user's current counts.
    case counts(Counts)
    /// Refetch the inbox: the server sent `reset` (too many events were missed), or the stream
    /// reconnected without a point to resume from, so what happened meanwhile is unknown.
    case reset
}
