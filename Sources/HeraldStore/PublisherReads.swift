import FoundationEssentials
import HeraldModel

/// Which notifications a publisher lists (the console's Messages page): every filter is optional.
public struct NotificationQuery: Sendable, Equatable {
    public var userID: String?
    /// A type (`order.shipped`) or a prefix of whole segments (`order` matches `order.shipped`).
    public var type: String?
    /// Notifications with at least one delivery in this status.
    public var status: DeliveryStatus?
    /// Created at or after.
    public var createdFrom: Date?
    /// Created before.
    public var createdBefore: Date?
    /// Exclusive: the previous page's `lastSeq`.
    public var beforeSeq: Int64?
    public var limit: Int

    public init(
        userID: String? = nil, type: String? = nil, status: DeliveryStatus? = nil, createdFrom: Date? = nil,
        createdBefore: Date? = nil, beforeSeq: Int64? = nil, limit: Int = 50
    ) {
        self.userID = userID
        self.type = type
        self.status = status
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.beforeSeq = beforeSeq
        self.limit = limit
    }
}

/// How many of a notification's deliveries stand in each status.
public struct DeliveryTally: Sendable, Equatable, Codable {
    public var queued = 0
    public var sending = 0
    public var sent = 0
    public var failed = 0
    public var skipped = 0
    public var expired = 0
    public var deferred = 0
    public var digested = 0

    public init() {}

    public var total: Int { queued + sending + sent + failed + skipped + expired + deferred + digested }

    public mutating func add(_ status: DeliveryStatus, _ count: Int) {
        switch status {
        case .queued: queued += count
        case .sending: sending += count
        case .sent: sent += count
        case .failed: failed += count
        case .skipped: skipped += count
        case .expired: expired += count
        case .deferred: deferred += count
        case .digested: digested += count
        }
    }
}

/// One notification as its publisher lists it: who got it, its inbox states and its deliveries.
public struct NotificationSummary: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var userID: String
    public var type: String
    public var category: String?
    public var title: String
    public var body: String
    public var hidden: Bool
    public var createdAt: Date
    public var readAt: Date?
    public var seenAt: Date?
    public var deletedAt: Date?
    public var deliveries: DeliveryTally

    public init(
        seq: Int64, id: String, userID: String, type: String, category: String?, title: String, body: String,
        hidden: Bool, createdAt: Date, readAt: Date?, seenAt: Date?, deletedAt: Date?, deliveries: DeliveryTally
    ) {
        self.seq = seq
        self.id = id
        self.userID = userID
        self.type = type
        self.category = category
        self.title = title
        self.body = body
        self.hidden = hidden
        self.createdAt = createdAt
        self.readAt = readAt
        self.seenAt = seenAt
        self.deletedAt = deletedAt
        self.deliveries = deliveries
    }
}

/// A page of ``NotificationSummary``, newest first.
public struct NotificationSummaryPage: Sendable, Equatable {
    public var items: [NotificationSummary]
    public var hasMore: Bool
    public var lastSeq: Int64? { items.last?.seq }

    public init(items: [NotificationSummary], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}

/// Deliveries created in one time bucket, per provider and status (the console's Overview chart).
public struct DeliveryBucket: Sendable, Equatable {
    /// The bucket's start.
    public var start: Date
    /// `nil` for the `no_device` rows.
    public var provider: PushProvider?
    public var status: DeliveryStatus
    public var count: Int

    public init(start: Date, provider: PushProvider?, status: DeliveryStatus, count: Int) {
        self.start = start
        self.provider = provider
        self.status = status
        self.count = count
    }
}

/// Active and inactive (pruned or replaced) devices of one provider.
public struct DeviceTally: Sendable, Equatable {
    public var provider: PushProvider
    public var active: Int
    public var inactive: Int

    public init(provider: PushProvider, active: Int, inactive: Int) {
        self.provider = provider
        self.active = active
        self.inactive = inactive
    }
}
