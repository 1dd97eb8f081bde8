import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// One Live Activity push to write with its delivery rows.
public struct NewLiveActivityPush: Sendable, Equatable {
    /// The push's id: its delivery rows' `notificationId`.
    public var id: String
    public var activityID: String
    /// Start only: who the activity starts for (update and end go to the activity's user).
    public var userID: String?
    public var content: LiveActivityContent
    /// The TTL of its deliveries; APNs's own policy when `nil`.
    public var ttlSeconds: Int?
    public var createdAt: Date

    public init(
        id: String, activityID: String, userID: String? = nil, content: LiveActivityContent, ttlSeconds: Int? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.activityID = activityID
        self.userID = userID
        self.content = content
        self.ttlSeconds = ttlSeconds
        self.createdAt = createdAt
    }
}

/// A Live Activity Herald knows: started through it, or whose update token the app registered.
public struct LiveActivityRecord: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var attributesType: String
    public var createdAt: Date
    public var updatedAt: Date
    /// When an `end` was pushed; `nil` while it runs.
    public var endedAt: Date?

    public init(
        id: String, userID: String, attributesType: String, createdAt: Date, updatedAt: Date, endedAt: Date?
    ) {
        self.id = id
        self.userID = userID
        self.attributesType = attributesType
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.endedAt = endedAt
    }
}

/// What writing a Live Activity push did.
public enum LiveActivityPushOutcome: Sendable, Equatable {
    /// Written: the activity as it now stands and the push's delivery rows (one per active token,
    /// or one skipped `no_device` row when there is none).
    case queued(LiveActivityRecord, deliveries: [DeliveryRecord])
    /// An update or end of an activity Herald does not know; nothing written.
    case unknownActivity
    /// An update of an activity that was ended; nothing written.
    case activityEnded
    /// A start with an activity id already in use; nothing written.
    case activityExists
}

/// The `kind` of a delivery row: the push of a notification, or of a Live Activity.
enum DeliveryKind {
    static let notification = "notification"
    static let liveActivity = "liveActivity"
    /// A digest's summary push: its `notification_id` is the `digests` row's id.
    static let digest = "digest"
}
