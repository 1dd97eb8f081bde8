import FoundationEssentials

/// What a webhook subscription can listen to. Each event is recorded in the same transaction as
/// the change it tells of (``WebhookStatements/emit(_:data:at:_:)``), once per subscription
/// listening to its type.
public enum WebhookEventType: String, Codable, Sendable, CaseIterable {
    /// A push reached its provider (APNs, FCM) or Expo accepted it with a ticket.
    case deliverySent = "delivery.sent"
    /// A push ended failed (a refusal, the attempt limit, a dead token, an Expo receipt's error)
    /// or expired (its TTL ran out); `data.status` says which.
    case deliveryFailed = "delivery.failed"
    /// A push was never sent: the push policy ruled it out, the user had no device, or the device
    /// was gone by the time it was due.
    case deliverySkipped = "delivery.skipped"
    /// A provider called a device's token dead and Herald deactivated the device.
    case devicePruned = "device.pruned"
    /// The recipient opened the notification from its push (the first time only).
    case notificationOpened = "notification.opened"
    /// The recipient read the notification (the first time only).
    case notificationRead = "notification.read"
    /// A message finished going out (recorded by the messages feature).
    case messageCompleted = "message.completed"
}

/// One webhook subscription: where its events go, which ones, and the secret that signs them.
public struct WebhookRecord: Sendable, Equatable {
    public var id: String
    /// An `http` or `https` URL.
    public var url: String
    /// In the order the subscription named them, each once.
    public var events: [WebhookEventType]
    /// The HMAC-SHA256 key of `Herald-Signature` (its UTF-8 bytes). Stored so Herald can sign;
    /// shown to the publisher once, in the answer that created it.
    public var secret: String
    public var createdAt: Date

    public init(id: String, url: String, events: [WebhookEventType], secret: String, createdAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }
}

/// What storing a subscription did.
public enum WebhookCreation: Sendable, Equatable {
    case created(WebhookRecord)
    /// `maxCount` subscriptions exist already; nothing was stored.
    case limitReached(count: Int)
}

/// Where one event's delivery to one subscription stands.
public enum WebhookDeliveryStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting: due at `nextAttemptAt`, after every earlier event of its subscription.
    case pending
    /// Claimed by a worker; due again when its lease runs out unfinished.
    case sending
    /// The receiver answered 2xx.
    case delivered
    /// Given up after the attempt limit or the maximum age.
    case failed
}

/// One POST of an event to its subscription's URL.
public struct WebhookAttempt: Sendable, Equatable {
    /// 1 for the first.
    public var attempt: Int
    /// When it started.
    public var at: Date
    /// From start to answer (or failure), in milliseconds.
    public var durationMilliseconds: Int
    /// The receiver's HTTP status; nil when no answer came.
    public var httpStatus: Int?
    /// Why no 2xx came (a refused address, a timeout, a refused connection, a TLS failure, a
    /// non-2xx answer); nil for a delivered one.
    public var error: String?

    public init(attempt: Int, at: Date, durationMilliseconds: Int, httpStatus: Int?, error: String?) {
        self.attempt = attempt
        self.at = at
        self.durationMilliseconds = durationMilliseconds
        self.httpStatus = httpStatus
        self.error = error
    }
}

/// One event's delivery to one subscription, as its publisher sees it.
public struct WebhookDeliveryRecord: Sendable, Equatable {
    public var id: String
    public var webhookID: String
    /// The event's id: the same on every attempt (receivers dedupe by it), and for every
    /// subscription the event went to.
    public var eventID: String
    public var type: WebhookEventType
    /// The JSON body POSTed: `{id, type, createdAt, data}`.
    public var body: String
    public var status: WebhookDeliveryStatus
    /// When it is next due (a sending one: its lease expiry); nil once final.
    public var nextAttemptAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Oldest first.
    public var attempts: [WebhookAttempt]

    public init(
        id: String, webhookID: String, eventID: String, type: WebhookEventType, body: String,
        status: WebhookDeliveryStatus, nextAttemptAt: Date?, createdAt: Date, updatedAt: Date,
        attempts: [WebhookAttempt]
    ) {
        self.id = id
        self.webhookID = webhookID
        self.eventID = eventID
        self.type = type
        self.body = body
        self.status = status
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.attempts = attempts
    }
}

/// A page of one subscription's deliveries, newest first.
public struct WebhookDeliveryPage: Sendable, Equatable {
    public var items: [WebhookDeliveryRecord]
    /// The position of the last item: the next page's `beforeSeq`, when there is one.
    public var nextBeforeSeq: Int64?

    public init(items: [WebhookDeliveryRecord], nextBeforeSeq: Int64?) {
        self.items = items
        self.nextBeforeSeq = nextBeforeSeq
    }
}

/// An event delivery a worker claimed, with what it POSTs and where.
public struct ClaimedWebhookDelivery: Sendable, Equatable {
    public var id: String
    /// Proves the claim when the outcome is recorded; a newer claim replaces it.
    public var claimToken: String
    public var webhookID: String
    public var url: String
    public var secret: String
    public var eventID: String
    public var type: WebhookEventType
    public var body: String
    /// This attempt's number (1 for the first).
    public var attempt: Int
    /// When the event was recorded: the maximum age counts from it.
    public var createdAt: Date
    /// When it becomes due again if no outcome is recorded.
    public var leaseExpiresAt: Date

    public init(
        id: String, claimToken: String, webhookID: String, url: String, secret: String, eventID: String,
        type: WebhookEventType, body: String, attempt: Int, createdAt: Date, leaseExpiresAt: Date
    ) {
        self.id = id
        self.claimToken = claimToken
        self.webhookID = webhookID
        self.url = url
        self.secret = secret
        self.eventID = eventID
        self.type = type
        self.body = body
        self.attempt = attempt
        self.createdAt = createdAt
        self.leaseExpiresAt = leaseExpiresAt
    }
}

/// What one attempt of a claimed event delivery came to.
public struct WebhookCompletion: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// 2xx: done; the subscription's next event is due.
        case delivered
        /// Try again at `at`; the subscription's later events wait behind it.
        case retry(at: Date)
        /// Given up; the subscription's next event is due.
        case failed
    }

    public var id: String
    public var claimToken: String
    public var attempt: WebhookAttempt
    public var outcome: Outcome

    public init(id: String, claimToken: String, attempt: WebhookAttempt, outcome: Outcome) {
        self.id = id
        self.claimToken = claimToken
        self.attempt = attempt
        self.outcome = outcome
    }
}

/// Webhook subscriptions and their transactional outbox. Events are written by the statements
/// whose change they tell of (``WebhookStatements/emit(_:data:at:_:)``), never by a route.
public protocol WebhookStore: Sendable {
    /// Stores `webhook` unless `maxCount` subscriptions exist (counted and stored in one step
    /// for every process on the database).
    func createWebhook(_ webhook: WebhookRecord, maxCount: Int?) async throws -> WebhookCreation
    /// Every subscription, oldest first.
    func webhooks() async throws -> [WebhookRecord]
    func webhook(id: String) async throws -> WebhookRecord?
    /// Deletes the subscription and every delivery of it, pending ones included; false when
    /// there was none.
    func deleteWebhook(id: String) async throws -> Bool
    /// The subscription's deliveries newest first, each with its attempts; `beforeSeq` (a
    /// previous page's ``WebhookDeliveryPage/nextBeforeSeq``) is exclusive. Nil for an unknown
    /// subscription.
    func webhookDeliveries(webhookID: String, beforeSeq: Int64?, limit: Int) async throws -> WebhookDeliveryPage?
    /// Atomically claims, for `lease` seconds, the due head of at most `limit` subscriptions: the
    /// oldest event of a subscription not yet delivered or failed, when it is due (never one
    /// behind it, so each subscription's events go out one at a time, in order). A claimed one
    /// whose lease ran out (a worker that died mid-send) is due again.
    func claimDueWebhookDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws
        -> [ClaimedWebhookDelivery]
    /// Records an attempt and its outcome; false, changing nothing, when `claimToken` no longer
    /// holds the delivery.
    func completeWebhookDelivery(_ completion: WebhookCompletion, now: Date) async throws -> Bool
    /// Records an event of `type` with `data` (a JSON object) for every subscription listening
    /// to it, in a transaction of its own; answers the event's id, nil when none listens.
    func emitWebhookEvent(_ type: WebhookEventType, data: String, at: Date) async throws -> String?
    /// Deletes deliveries final since before `finishedBefore`, and those whose subscription is
    /// gone; answers how many.
    func pruneWebhookDeliveries(finishedBefore: Date) async throws -> Int
}
