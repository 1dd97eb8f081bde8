import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Where a broadcast's fan-out stands.
public enum BroadcastStatus: String, Codable, Sendable, CaseIterable {
    /// Stored, waiting for a runner.
    case queued
    /// Claimed by a runner; claimable again when its lease runs out unfinished.
    case running
    /// Every user of the audience got the notification.
    case completed
    /// Given up; `failureReason` says why. Users reached before stay reached.
    case failed
}

/// Which kind of audience a broadcast has.
public enum BroadcastAudienceKind: String, Codable, Sendable {
    /// Every user Herald knows.
    case all
    /// The user ids listed in the request.
    case users
}

/// The notification a broadcast gives each user of its audience: the fields of a publish
/// request. Stored as JSON with the broadcast.
public struct BroadcastTemplate: Codable, Sendable, Equatable {
    public var type: String
    public var title: String
    public var body: String
    public var data: [String: String]
    public var deepLink: String?
    public var detail: NotificationDetail?
    public var push: PushOptions?
    public var source: NotificationSource?

    public init(
        type: String, title: String, body: String, data: [String: String] = [:], deepLink: String? = nil,
        detail: NotificationDetail? = nil, push: PushOptions? = nil, source: NotificationSource? = nil
    ) {
        self.source = source
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.detail = detail
        self.push = push
    }
}

/// A broadcast to store, queued.
public struct NewBroadcast: Sendable, Equatable {
    public var id: String
    public var apiKeyID: String
    public var template: BroadcastTemplate
    /// `nil`: every user Herald knows; otherwise the listed ids (repeats are stored once).
    public var userIDs: [String]?
    /// The category the catalog gives its type now (recorded on its message).
    public var category: String?
    public var createdAt: Date

    public init(
        id: String, apiKeyID: String, template: BroadcastTemplate, userIDs: [String]?, category: String? = nil,
        createdAt: Date
    ) {
        self.category = category
        self.id = id
        self.apiKeyID = apiKeyID
        self.template = template
        self.userIDs = userIDs
        self.createdAt = createdAt
    }
}

/// One broadcast and its progress (its notification is read only by the fan-out).
public struct BroadcastRecord: Sendable, Equatable {
    public var id: String
    public var apiKeyID: String
    public var audience: BroadcastAudienceKind
    public var status: BroadcastStatus
    /// Users of the audience: the distinct listed ids; for `all`, `nil` until the fan-out
    /// starts, then the users known at that moment, and once completed the users reached.
    public var total: Int?
    /// Users the notification was written for so far.
    public var processed: Int
    public var failureReason: String?
    public var createdAt: Date
    public var startedAt: Date?
    public var completedAt: Date?

    public init(
        id: String, apiKeyID: String, audience: BroadcastAudienceKind, status: BroadcastStatus, total: Int?,
        processed: Int, failureReason: String?, createdAt: Date,
        startedAt: Date?, completedAt: Date?
    ) {
        self.id = id
        self.apiKeyID = apiKeyID
        self.audience = audience
        self.status = status
        self.total = total
        self.processed = processed
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.completedAt = completedAt
    }
}

/// One page of broadcasts, newest first.
public struct BroadcastPage: Sendable, Equatable {
    public var items: [BroadcastRecord]
    /// The seq of the last item (the cursor of the next page).
    public var lastSeq: Int64?
    public var hasMore: Bool

    public init(items: [BroadcastRecord], lastSeq: Int64?, hasMore: Bool) {
        self.items = items
        self.lastSeq = lastSeq
        self.hasMore = hasMore
    }
}

/// What storing a broadcast did (see ``IdempotencyClaim``).
public enum BroadcastCreation: Sendable, Equatable {
    /// Stored and queued.
    case created(BroadcastRecord)
    /// The same API key, key and request within the window: the broadcast the first request
    /// made, as it stands now; nothing stored.
    case replayed(BroadcastRecord)
    /// Same key, different request: nothing stored.
    case conflict
    /// The API key already has this many broadcasts queued or running (the cap): nothing stored.
    case limitReached(active: Int)
}

/// A broadcast a runner holds until `leaseExpiresAt` (each chunk extends it).
public struct ClaimedBroadcast: Sendable, Equatable {
    public var id: String
    public var claimToken: String
    public var leaseExpiresAt: Date

    public init(id: String, claimToken: String, leaseExpiresAt: Date) {
        self.id = id
        self.claimToken = claimToken
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// What one fan-out chunk wrote, for the live hub and the delivery worker.
public struct BroadcastChunk: Sendable, Equatable {
    /// One `notification.created` per user reached (none for a hidden type).
    public var events: [StreamEventRecord]
    /// The counters of every user reached, after the write.
    public var counts: [String: Counts]
    /// Whether delivery rows were written (the template asks for push).
    public var wroteDeliveries: Bool
    /// The broadcast after the chunk; `completed` once the audience is exhausted.
    public var broadcast: BroadcastRecord

    public init(
        events: [StreamEventRecord], counts: [String: Counts], wroteDeliveries: Bool, broadcast: BroadcastRecord
    ) {
        self.events = events
        self.counts = counts
        self.wroteDeliveries = wroteDeliveries
        self.broadcast = broadcast
    }
}
