import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Everything the server keeps: settings, publisher keys, the inbox with its counters and
/// live-update log, preferences, devices, analytics events and the app config.
///
/// Every method that changes more than one row does so in one transaction: the rows, the
/// user's counters and the stream events are written together or not at all (and so are the
/// webhook events that tell of them: ``WebhookStore``).
public protocol HeraldStore: WebhookStore, Sendable {
    // MARK: Settings

    /// A stored setting (e.g. the generated user-token secret), or `nil`.
    func setting(_ key: String) async throws -> String?
    /// Stores `value` unless the key exists; returns the value now stored (race-safe).
    func setSettingIfAbsent(_ key: String, value: String) async throws -> String
    /// The APNs provider token every server on this database sends with for `keyID`: the stored
    /// one while it was issued after `staleBefore` and is not in `rejected`, otherwise
    /// `candidate`, stored in its place. One write transaction, so servers asking at once agree.
    func sharedProviderToken(
        keyID: String, candidate: SharedProviderToken, staleBefore: Date, rejected: Set<String>
    ) async throws -> SharedProviderToken

    // MARK: Publisher API keys (only the hash is stored)

    func createAPIKey(_ key: APIKeyRecord) async throws
    /// The key with this hash; `nil` when there is none or it was revoked.
    func apiKey(hash: String) async throws -> APIKeyRecord?
    /// Every key that is not revoked, oldest first.
    func apiKeys() async throws -> [APIKeyRecord]
    /// Revokes key `id` at `at`: from then on ``apiKey(hash:)`` does not find it.
    func revokeAPIKey(id: String, at: Date) async throws -> APIKeyRevocation
    /// Records that key `id` was used at `at`; an earlier time than the stored one changes
    /// nothing, so servers recording at once keep the latest.
    func recordAPIKeyUse(id: String, at: Date) async throws

    // MARK: Console sessions (only the hash of the session secret is stored)

    /// Stores a new console session; its key must exist.
    func createConsoleSession(_ session: ConsoleSessionRecord) async throws
    /// The session with this hash and its key, its last sight moved to `now`; `nil` when there is none,
    /// when it was last seen before `idleBefore` or created before `createdBefore` (it is then
    /// deleted), or when its key was revoked.
    func consoleSession(hash: String, now: Date, idleBefore: Date, createdBefore: Date) async throws
        -> (session: ConsoleSessionRecord, key: APIKeyRecord)?
    /// Ends the session with this hash (sign-out); `false` when there was none.
    func deleteConsoleSession(hash: String) async throws -> Bool
    /// Deletes every session idle since `idleBefore` or created before `createdBefore`; answers how many.
    func pruneConsoleSessions(idleBefore: Date, createdBefore: Date) async throws -> Int

    // MARK: Publishing

    /// Writes every notification, its user counters, its stream event and its push delivery
    /// rows in ONE transaction; all or nothing. See ``PublishOutcome`` for idempotency.
    ///
    /// A notification whose push options ask to send (and that is not hidden) gets, per
    /// recipient, the push policy's answer for each active device under the stored preferences
    /// and `catalog`: a queued row, a skipped row with the policy's reason, or a deferred row
    /// due when quiet hours end; a recipient without an active device gets one skipped
    /// `no_device` row. The TTL expiry is the creation time plus `ttlSeconds`.
    ///
    /// With `message`, the message is recorded in the same transaction; a scheduled message's
    /// notifications are held instead (nothing visible, counted, streamed or pushed) until
    /// ``publishDueScheduled(limit:rules:now:)`` publishes them at their time.
    func publish(
        _ notifications: [NewNotification], message: NewMessage?, rules: PushRules, idempotency: IdempotencyClaim?
    ) async throws -> PublishOutcome

    // MARK: Messages

    /// The message `id` with its funnel; nil for an unknown id.
    func message(id: String) async throws -> (record: MessageRecord, funnel: MessageFunnel)?
    /// Messages newest first with their funnels.
    func messages(_ query: MessageQuery) async throws -> MessagePage
    /// Cancels what of message `id` has not gone out (see ``MessageCancellation``); nil for an unknown id.
    func cancelMessage(id: String, now: Date) async throws -> MessageCancellation?
    /// Publishes at most `limit` scheduled notifications whose time has come, in ONE transaction,
    /// each exactly as a publish at `now` would write it. Several servers may run it at once:
    /// each notification is published once.
    func publishDueScheduled(limit: Int, rules: PushRules, now: Date) async throws -> ScheduledPublishRun
    /// When the earliest scheduled notification is due; nil when none waits.
    func nextScheduledDue() async throws -> Date?
    /// Marks complete (at `now`) the open messages, at most `limit`, oldest first, that have
    /// nothing left to go out; answers their ids, each completed by one caller only.
    func completeFinishedMessages(limit: Int, now: Date) async throws -> [String]
    /// The sources `userID` has received notifications from, most recent first, with their mutes.
    func sources(userID: String) async throws -> [ReceivedSource]

    // MARK: Digests

    /// Writes, in ONE transaction, the summary push of at most `limit` users whose digest is due at
    /// `now` (see ``DigestTemplate``); several servers may run it at once, each user is summed up once.
    func runDueDigests(limit: Int, template: DigestTemplate, catalog: Catalog, now: Date) async throws -> DigestRun
    /// When the earliest pending digest is due; nil when none is pending.
    func nextDigestDue() async throws -> Date?
    /// Moves `userID`'s pending digest to `at`; false when none was pending.
    func rescheduleDigest(userID: String, at: Date) async throws -> Bool

    // MARK: Inbox (never hidden `admin.*` rows, never deleted rows)

    /// Newest first by `seq`; `beforeSeq` is exclusive. Each item is the row's stored list JSON,
    /// so the list answer is written without decoding rows.
    func renderedInboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws
        -> RenderedInboxPage
    /// The notification with `detail`; `nil` for a missing id, another user's, a deleted or a hidden one.
    func notification(userID: String, id: String) async throws -> InboxNotification?
    /// Sets `readAt` (and `seenAt` when unset). `nil` when not found (as above). Idempotent: a
    /// second read keeps the first `readAt` and appends no event.
    func markRead(userID: String, id: String, at: Date) async throws -> ChangeOutcome?
    /// Records that the user opened notification `id` from its push (the first time is kept);
    /// when it was first opened, or nil for one that is not theirs, is hidden or deleted.
    func markOpened(userID: String, id: String, at: Date) async throws -> Date?
    /// Sets `seenAt` on every unseen row; unread dots stay. Appends no stream event.
    func markAllSeen(userID: String, at: Date) async throws -> Counts
    /// Soft delete; `nil` when not found. Deleting an already-deleted own row returns an
    /// outcome whose `event` is `nil` (idempotent).
    func delete(userID: String, id: String, at: Date) async throws -> ChangeOutcome?
    func counts(userID: String) async throws -> Counts

    // MARK: Publisher reads

    /// The notification `id` as its publisher sees it: whoever received it, hidden or deleted,
    /// with its push options. `nil` when no row has that id.
    func publishedNotification(id: String) async throws -> StoredNotification?

    /// The delivery rows of notification `id`, oldest first (empty for an unknown id).
    func deliveries(notificationID: String) async throws -> [DeliveryRecord]

    // MARK: Push delivery outbox (the delivery worker)

    /// Atomically claims at most `limit` due deliveries, oldest due first, for `lease`
    /// seconds: queued rows, deferred rows whose time has come, and sending rows whose lease
    /// ran out (a worker that died mid-send). Each becomes `sending` with a new claim token
    /// and one more attempt; its id stays. A due row past its TTL is marked `expired` here
    /// and not returned, so a worker never sends a stale push; so is a row whose device is no
    /// longer active or no longer the recipient's (skipped, `device_inactive`).
    func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery]
    /// Records the outcome of a claim. `false`, changing nothing, when `claimToken` no
    /// longer holds the row (its lease ran out and it was claimed again, or it completed).
    func completeDelivery(id: String, claimToken: String, outcome: DeliveryOutcome, now: Date) async throws -> Bool
    /// Records many outcomes in one transaction, each as ``completeDelivery(id:claimToken:outcome:now:)``
    /// would: the answers, in order, say which claims still held.
    func completeDeliveries(_ completions: [DeliveryCompletion], now: Date) async throws -> [Bool]

    // MARK: Expo push receipts (the receipt poller)

    /// Atomically claims at most `limit` Expo tickets whose receipt is due, oldest due first,
    /// for `lease` seconds: until the lease runs out no other claim returns them (a poller
    /// that died mid-fetch leaves them due again).
    func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt]
    /// Records what the receipts of a claim said. A receipt whose claim no longer holds its row
    /// (the lease ran out and it was claimed again) changes nothing. Answers how many rows
    /// it changed.
    func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int

    // MARK: Broadcasts (fanned out in the background, chunk by chunk)

    /// Stores `broadcast` as queued with its listed audience (repeated ids once), in one
    /// transaction, at most once per `Idempotency-Key` (see ``BroadcastCreation``). With
    /// `maxActive`, a key that already has that many broadcasts queued or running gets
    /// ``BroadcastCreation/limitReached(active:)`` and nothing is stored; the count and the insert
    /// are one step for every process on the database (a replay is answered before the count).
    func createBroadcast(_ broadcast: NewBroadcast, idempotency: IdempotencyClaim?, maxActive: Int?) async throws
        -> BroadcastCreation
    /// The broadcast `id` with its progress; `nil` when there is none.
    func broadcast(id: String) async throws -> BroadcastRecord?
    /// Broadcasts newest first; `beforeSeq` (the previous page's `lastSeq`) is exclusive.
    func broadcasts(beforeSeq: Int64?, limit: Int) async throws -> BroadcastPage
    /// Atomically claims the oldest broadcast that is queued, or running with its lease run out
    /// (a runner that died mid-fan-out), for `lease` seconds under a new claim token. Claiming a
    /// broadcast to every user for the first time counts the users known then as its `total`.
    func claimBroadcast(now: Date, lease: TimeInterval) async throws -> ClaimedBroadcast?
    /// Fans out the next chunk of a claimed broadcast, in ONE transaction: the next `limit` users
    /// of its audience after its cursor, in user id order, each get the notification exactly as
    /// ``publish(_:catalog:idempotency:)`` writes it (inbox row, counters, stream event, delivery
    /// rows under the push policy, created `now`), and the cursor, `processed` and the lease
    /// (`now + lease`) move with them. A chunk of fewer than `limit` users completes it.
    ///
    /// Every user means every user id Herald knows: one with a device (active or not), stored
    /// preferences or an inbox counter (anyone who was ever sent a visible notification).
    ///
    /// `nil`, writing nothing, when `claimToken` no longer holds the broadcast (another runner
    /// claimed it after the lease ran out, or it ended).
    func fanOutBroadcastChunk(
        id: String, claimToken: String, limit: Int, rules: PushRules, now: Date, lease: TimeInterval
    ) async throws -> BroadcastChunk?
    /// Hands a claimed broadcast back (a runner stopping between chunks): claimable again at
    /// `now`, from its cursor. `false`, changing nothing, when `claimToken` no longer holds it.
    func releaseBroadcast(id: String, claimToken: String, now: Date) async throws -> Bool
    /// Ends a claimed broadcast as failed with `reason`; `false`, changing nothing, when
    /// `claimToken` no longer holds it.
    func failBroadcast(id: String, claimToken: String, reason: String, now: Date) async throws -> Bool

    // MARK: Live-update log, for SSE Last-Event-ID resume

    /// Events of `userID` with `seq > afterSeq`, oldest first, at most `limit`.
    func streamEvents(userID: String, afterSeq: Int64, limit: Int) async throws -> [StreamEventRecord]
    /// The newest event seq of `userID`, or 0 when there is none.
    func latestStreamSeq(userID: String) async throws -> Int64
    /// Deletes events created before `olderThan`; returns how many.
    func pruneStreamEvents(olderThan: Date) async throws -> Int
    /// Forgets `Idempotency-Key` claims recorded before `olderThan`; answers how many.
    func pruneIdempotencyKeys(olderThan: Date) async throws -> Int

    // MARK: Preferences

    /// `nil` when never stored (the server applies defaults).
    func preferences(userID: String) async throws -> Preferences?
    /// Read-modify-write in one write transaction; `update` receives the stored value or
    /// `initial` when none; returns what was stored. A throwing `update` stores nothing.
    /// `update` runs while the store's write lock is held: keep it short and never call the store from it.
    func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences

    // MARK: Devices (the token is the primary key)

    /// Upserts; a token registered under another user moves to `userID` (and becomes active).
    /// Returns the stored device.
    func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device
    /// Removes only this user's token; `true` if one was removed.
    func deleteDevice(userID: String, token: String) async throws -> Bool
    /// Newest first (most recently registered or updated).
    func devices(userID: String) async throws -> [Device]

    // MARK: Live Activities

    /// The user's pushes a snooze holds that are due later than `due` become due then (the
    /// snooze ended early, or moved sooner); answers how many.
    func releaseSnoozedDeliveries(userID: String, due: Date, now: Date) async throws -> Int
    /// Upserts an ActivityKit push token for `userID` (a token registered under another user moves
    /// to this one and becomes active). An update token also records its activity as `userID`'s;
    /// nil, and nothing written, when that activity is another user's. A new token retires none
    /// (the activity runs on each device it started on, each with its token); APNs prunes dead
    /// ones. Returns the stored token.
    func registerLiveActivityToken(userID: String, _ registration: LiveActivityTokenRegistration, at: Date)
        async throws -> LiveActivityToken?
    /// Removes `token` when it is `userID`'s (sign-out on a shared device); false when it is not.
    func deleteLiveActivityToken(userID: String, token: String) async throws -> Bool
    /// The user's Live Activity tokens, newest first, inactive ones too.
    func liveActivityTokens(userID: String) async throws -> [LiveActivityToken]
    /// Writes a Live Activity push and its delivery rows in ONE transaction: a start records the
    /// activity and goes to the user's active push-to-start tokens of its attributes type; an update
    /// or end goes to the activity's active update token (an end also marks the activity ended).
    /// Rows are queued for the worker (kind `liveActivity`, provider APNs); with no token, one
    /// skipped `no_device` row. See ``LiveActivityPushOutcome`` for what is refused.
    func pushLiveActivity(_ push: NewLiveActivityPush) async throws -> LiveActivityPushOutcome
    /// The delivery rows of every push of the activity, oldest first; `nil` for an unknown activity.
    func liveActivityDeliveries(activityID: String) async throws -> [DeliveryRecord]?

    // MARK: Analytics

    func insertEvents(userID: String, _ events: [AnalyticsEvent], receivedAt: Date) async throws
    func eventCount(userID: String) async throws -> Int

    // MARK: App config (one document)

    /// The stored document (`nil` before the first write) and its version (0 before the first).
    func appConfigRecord() async throws -> AppConfigRecord
    /// Stores `document` as the next version. With `ifVersion` it is stored only over that
    /// version (0: only when none is stored yet), checked in the write itself, so of two servers
    /// writing over the same version one wins and the other gets `nil` and stores nothing.
    func setAppConfig(_ document: AppConfigDocument, at: Date, ifVersion: Int?) async throws -> AppConfigRecord?

    // MARK: Publisher reads across users (the console)

    /// Notifications newest first, with their delivery tallies (see ``NotificationQuery``).
    func notifications(_ query: NotificationQuery) async throws -> NotificationSummaryPage
    /// The deliveries of the user's newest `notificationLimit` notifications, newest first.
    func deliveries(userID: String, notificationLimit: Int) async throws -> [DeliveryRecord]
    /// Deliveries created since `since`, per `bucketSeconds` bucket, provider and status.
    func deliveryBuckets(since: Date, bucketSeconds: Int) async throws -> [DeliveryBucket]
    /// Devices per provider, active and not (every provider, zeros included).
    func deviceTallies() async throws -> [DeviceTally]
    /// Every user id Herald knows: who a broadcast to everyone reaches.
    func knownUserCount() async throws -> Int

    // MARK: Readiness

    /// Throws when the database cannot answer a trivial query.
    func ping() async throws
}

extension HeraldStore {
    /// Publishes `notifications` now, under `catalog` alone and without a message.
    public func publish(_ notifications: [NewNotification], catalog: Catalog, idempotency: IdempotencyClaim?)
        async throws -> PublishOutcome
    {
        try await publish(notifications, message: nil, rules: PushRules(catalog: catalog), idempotency: idempotency)
    }

    /// The stored app config, `nil` before the first write.
    public func appConfig() async throws -> AppConfigDocument? {
        try await appConfigRecord().document
    }

    /// Stores `document` as the next version, whatever version stands.
    public func setAppConfig(_ document: AppConfigDocument, at: Date) async throws {
        _ = try await setAppConfig(document, at: at, ifVersion: nil)
    }

    /// ``fanOutBroadcastChunk(id:claimToken:limit:rules:now:lease:)`` under `catalog` alone.
    public func fanOutBroadcastChunk(
        id: String, claimToken: String, limit: Int, catalog: Catalog, now: Date, lease: TimeInterval
    ) async throws -> BroadcastChunk? {
        try await fanOutBroadcastChunk(
            id: id, claimToken: claimToken, limit: limit, rules: PushRules(catalog: catalog), now: now, lease: lease)
    }

    /// Stores `broadcast` without a cap on the key's broadcasts at once.
    public func createBroadcast(_ broadcast: NewBroadcast, idempotency: IdempotencyClaim?) async throws
        -> BroadcastCreation
    {
        try await createBroadcast(broadcast, idempotency: idempotency, maxActive: nil)
    }
}

/// A publisher API key. Only the hash of the secret is stored.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    public var hash: String
    public var createdAt: Date
    /// When a server last recorded a call with it (at most once a minute per server); `nil`
    /// before the first.
    public var lastUsedAt: Date?

    public init(id: String, name: String, hash: String, createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.hash = hash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// The app config as stored, with its version (its ETag).
public struct AppConfigRecord: Sendable, Equatable {
    public var document: AppConfigDocument?
    /// 0 before the first write; one more with each.
    public var version: Int
    public var updatedAt: Date?

    public init(document: AppConfigDocument?, version: Int, updatedAt: Date?) {
        self.document = document
        self.version = version
        self.updatedAt = updatedAt
    }
}

/// A console sign-in with a publisher API key. Only the hash of the cookie's secret is stored.
public struct ConsoleSessionRecord: Sendable, Equatable {
    public var hash: String
    public var apiKeyID: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(hash: String, apiKeyID: String, createdAt: Date, lastSeenAt: Date) {
        self.hash = hash
        self.apiKeyID = apiKeyID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// What revoking an API key did.
public enum APIKeyRevocation: Sendable, Equatable {
    /// Revoked now.
    case revoked
    /// It was revoked before, at this time; nothing changed.
    case alreadyRevoked(Date)
    /// No key has that id; nothing changed.
    case notFound
}

/// One inbox row to write: one per recipient of a publish request.
public struct NewNotification: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var type: String
    public var category: String?
    /// Never shown to app users (`admin.*`): not listed, not counted, no stream event.
    public var hidden: Bool
    public var title: String
    public var body: String
    public var data: [String: String]
    public var deepLink: String?
    public var detail: NotificationDetail?
    public var push: PushOptions?
    /// The message (publish or broadcast) it is part of.
    public var messageID: String?
    /// Where it came from, as its publisher named it (what a user can mute).
    public var source: NotificationSource?
    public var createdAt: Date

    public init(
        id: String, userID: String, type: String, category: String?, hidden: Bool = false,
        title: String, body: String, data: [String: String] = [:], deepLink: String? = nil,
        detail: NotificationDetail? = nil, push: PushOptions? = nil, messageID: String? = nil,
        source: NotificationSource? = nil, createdAt: Date
    ) {
        self.messageID = messageID
        self.source = source
        self.id = id
        self.userID = userID
        self.type = type
        self.category = category
        self.hidden = hidden
        self.title = title
        self.body = body
        self.data = data
        self.deepLink = deepLink
        self.detail = detail
        self.push = push
        self.createdAt = createdAt
    }
}

/// The `Idempotency-Key` of a publish request.
///
/// The claim is recorded with the time of the batch (the `createdAt` of its first
/// notification, which comes from the server's clock; now for an empty batch). A stored claim
/// older than `notBefore` is expired and replaced.
public struct IdempotencyClaim: Sendable, Equatable {
    public var apiKeyID: String
    public var key: String
    public var requestHash: String
    public var notBefore: Date

    public init(apiKeyID: String, key: String, requestHash: String, notBefore: Date) {
        self.apiKeyID = apiKeyID
        self.key = key
        self.requestHash = requestHash
        self.notBefore = notBefore
    }
}

/// What a publish did.
public enum PublishOutcome: Sendable, Equatable {
    /// Written. `events`: one `notification.created` per non-hidden notification, in input
    /// order; `counts`: per recipient after the write. The claim (if any) was recorded with the
    /// ``PublishedNotification`` list so a replay answers the same.
    case created(events: [StreamEventRecord], counts: [String: Counts])
    /// Scheduled: nothing visible yet; each notification (input order) publishes at its time.
    case scheduled(sendAt: [Date])
    /// Same API key and key within the window and the same request hash: the first answer;
    /// nothing written.
    case replayed(PublishResponse)
    /// Same key, different request hash: nothing written.
    case conflict
}

/// One inbox row as the list writes it: `json` is the item's JSON object up to its read and
/// seen times (`JSONWriter.notificationFields`); `JSONWriter.notificationClose` completes it.
public struct RenderedInboxItem: Sendable, Equatable {
    public var json: String
    public var readAt: Date?
    public var seenAt: Date?

    public init(json: String, readAt: Date?, seenAt: Date?) {
        self.json = json
        self.readAt = readAt
        self.seenAt = seenAt
    }
}

/// One inbox page, rendered: what the list answer is written from.
public struct RenderedInboxPage: Sendable, Equatable {
    /// Newest first.
    public var items: [RenderedInboxItem]
    /// The seq of the last returned item (the cursor for the next page).
    public var lastSeq: Int64?
    public var hasMore: Bool
    public var counts: Counts

    public init(items: [RenderedInboxItem], lastSeq: Int64?, hasMore: Bool, counts: Counts) {
        self.items = items
        self.lastSeq = lastSeq
        self.hasMore = hasMore
        self.counts = counts
    }
}

/// One notification row as its publisher sees it.
public struct StoredNotification: Sendable, Equatable {
    public var userID: String
    /// The row with its detail and current read and seen times.
    public var notification: InboxNotification
    /// The push options it was published with.
    public var push: PushOptions?
    /// An `admin.*` row no app user sees.
    public var hidden: Bool
    public var deleted: Bool

    public init(userID: String, notification: InboxNotification, push: PushOptions?, hidden: Bool, deleted: Bool) {
        self.userID = userID
        self.notification = notification
        self.push = push
        self.hidden = hidden
        self.deleted = deleted
    }
}

/// The result of reading or deleting one notification.
public struct ChangeOutcome: Sendable, Equatable {
    /// The row after the change (no `detail`).
    public var notification: InboxNotification
    /// The appended `notification.updated` event; `nil` when nothing changed.
    public var event: StreamEventRecord?
    public var counts: Counts

    public init(notification: InboxNotification, event: StreamEventRecord?, counts: Counts) {
        self.notification = notification
        self.event = event
        self.counts = counts
    }
}

/// One entry of a user's live-update log.
public struct StreamEventRecord: Sendable, Equatable {
    public var seq: Int64
    public var userID: String
    /// ``notificationCreated`` or ``notificationUpdated``.
    public var kind: String
    /// JSON: the ``InboxNotification`` (created) or a ``NotificationUpdated`` (updated).
    public var payload: String

    public init(seq: Int64, userID: String, kind: String, payload: String) {
        self.seq = seq
        self.userID = userID
        self.kind = kind
        self.payload = payload
    }

    public static let notificationCreated = "notification.created"
    public static let notificationUpdated = "notification.updated"

    /// The payload of a `notification.updated` event. `readAt` and `seenAt` are always
    /// present, as `null` when unset.
    public struct NotificationUpdated: Codable, Sendable, Equatable {
        public var id: String
        public var readAt: Date?
        public var seenAt: Date?
        public var deleted: Bool

        public init(id: String, readAt: Date?, seenAt: Date?, deleted: Bool) {
            self.id = id
            self.readAt = readAt
            self.seenAt = seenAt
            self.deleted = deleted
        }

        enum CodingKeys: String, CodingKey { case id, readAt, seenAt, deleted }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(readAt, forKey: .readAt)
            try container.encode(seenAt, forKey: .seenAt)
            try container.encode(deleted, forKey: .deleted)
        }
    }
}
