import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// How a message was sent: one publish request, or a broadcast (whose id is the message's).
public enum MessageKind: String, Codable, Sendable, CaseIterable {
    case publish
    case broadcast
}

/// When a scheduled message publishes: at one time, or at a wall-clock time in each recipient's
/// time zone.
public enum MessageSchedule: Sendable, Equatable {
    case at(Date)
    case localTime(String)
}

/// A message to record with its notifications: what the publisher sent, once.
public struct NewMessage: Sendable, Equatable {
    public var id: String
    public var kind: MessageKind
    public var apiKeyID: String?
    public var type: String
    public var title: String
    public var category: String?
    public var source: NotificationSource?
    /// `nil`: published now. Otherwise the notifications are held (invisible, unpushed) until due.
    public var schedule: MessageSchedule?
    public var createdAt: Date

    public init(
        id: String, kind: MessageKind = .publish, apiKeyID: String? = nil, type: String, title: String,
        category: String?, source: NotificationSource? = nil, schedule: MessageSchedule? = nil, createdAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.apiKeyID = apiKeyID
        self.type = type
        self.title = title
        self.category = category
        self.source = source
        self.schedule = schedule
        self.createdAt = createdAt
    }

    /// A new message id: `msg_` and 26 random base-32 characters, sortable by nothing.
    public static func makeID() -> String {
        "msg_" + UUID().uuidString.lowercased().replacingLiteral("-", with: "")
    }
}

/// A stored message.
public struct MessageRecord: Sendable, Equatable {
    public var id: String
    public var kind: MessageKind
    public var type: String
    public var title: String
    public var category: String?
    public var source: NotificationSource?
    public var sendAt: Date?
    public var deliverAtLocalTime: String?
    public var createdAt: Date
    public var cancelledAt: Date?
    /// When every push of it reached a final state and nothing of it was still scheduled or held.
    public var completedAt: Date?
    public var seq: Int64

    public init(
        id: String, kind: MessageKind, type: String, title: String, category: String?, source: NotificationSource?,
        sendAt: Date?, deliverAtLocalTime: String?, createdAt: Date, cancelledAt: Date?, completedAt: Date?,
        seq: Int64
    ) {
        self.id = id
        self.kind = kind
        self.type = type
        self.title = title
        self.category = category
        self.source = source
        self.sendAt = sendAt
        self.deliverAtLocalTime = deliverAtLocalTime
        self.createdAt = createdAt
        self.cancelledAt = cancelledAt
        self.completedAt = completedAt
        self.seq = seq
    }
}

/// How a message stands: its recipients, what is still scheduled, its pushes by outcome, opens
/// and reads. Pushes count delivery rows (one per device, or one `no_device` row).
public struct MessageFunnel: Sendable, Equatable {
    /// Notifications written plus those still scheduled.
    public var recipients: Int
    /// Notifications not yet published (their time has not come).
    public var scheduled: Int
    /// Notifications published (in the inbox, unless deleted since).
    public var published: Int
    /// Delivery rows per status (every ``DeliveryStatus`` present, zeros included).
    public var pushes: [DeliveryStatus: Int]
    /// Skipped rows per reason.
    public var skippedByReason: [String: Int]
    /// Deferred rows per reason (`quiet_hours` or `snoozed`).
    public var deferredByReason: [String: Int]
    public var opened: Int
    public var read: Int

    public init(
        recipients: Int = 0, scheduled: Int = 0, published: Int = 0, pushes: [DeliveryStatus: Int] = [:],
        skippedByReason: [String: Int] = [:], deferredByReason: [String: Int] = [:], opened: Int = 0, read: Int = 0
    ) {
        self.recipients = recipients
        self.scheduled = scheduled
        self.published = published
        self.pushes = pushes
        self.skippedByReason = skippedByReason
        self.deferredByReason = deferredByReason
        self.opened = opened
        self.read = read
    }
}

/// The filters of `GET /v1/messages`: newest first, `beforeSeq` exclusive.
public struct MessageQuery: Sendable, Equatable {
    public var limit: Int
    public var beforeSeq: Int64?
    public var type: String?
    public var sourceID: String?
    public var kind: MessageKind?
    /// Only messages still scheduled (some notification not yet published, not cancelled).
    public var scheduledOnly: Bool
    public var createdFrom: Date?
    public var createdBefore: Date?

    public init(
        limit: Int, beforeSeq: Int64? = nil, type: String? = nil, sourceID: String? = nil, kind: MessageKind? = nil,
        scheduledOnly: Bool = false, createdFrom: Date? = nil, createdBefore: Date? = nil
    ) {
        self.limit = limit
        self.beforeSeq = beforeSeq
        self.type = type
        self.sourceID = sourceID
        self.kind = kind
        self.scheduledOnly = scheduledOnly
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
    }
}

/// One page of messages, each with its funnel.
public struct MessagePage: Sendable {
    public var items: [(record: MessageRecord, funnel: MessageFunnel)]
    public var hasMore: Bool

    public init(items: [(record: MessageRecord, funnel: MessageFunnel)], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}

/// What cancelling a message stopped.
public struct MessageCancellation: Sendable, Equatable {
    /// Scheduled notifications that will now never be published.
    public var scheduled: Int
    /// Pushes that had not gone out (queued, deferred or held for a digest), now skipped `cancelled`.
    public var pushes: Int
    /// When it was cancelled (the first cancel's time when it was cancelled before).
    public var cancelledAt: Date

    public init(scheduled: Int, pushes: Int, cancelledAt: Date) {
        self.scheduled = scheduled
        self.pushes = pushes
        self.cancelledAt = cancelledAt
    }
}

/// What one run of the scheduler published.
public struct ScheduledPublishRun: Sendable, Equatable {
    /// Notifications published (their `notification.created` events were logged and announced).
    public var published: Int
    /// Whether any push delivery row was written (wake the delivery worker).
    public var wroteDeliveries: Bool

    public init(published: Int, wroteDeliveries: Bool) {
        self.published = published
        self.wroteDeliveries = wroteDeliveries
    }
}
