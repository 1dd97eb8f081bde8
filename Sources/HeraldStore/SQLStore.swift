import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The one implementation of ``HeraldStore``, for every database: each method runs the
/// statements both databases share (``InboxStatements``, ``AccountStatements``,
/// ``OutboxStatements``, ``DeliveryStatements``, ``BroadcastStatements``) on a connection its
/// store lends, off the cooperative pool. A store says only how it lends connections; where the
/// databases differ, the connection type answers a hook (``StoreConnection``).
package protocol SQLStore: HeraldStore, LiveChangeSource {
    associatedtype Connection: StoreConnection

    /// Runs `body` in one write transaction. When it throws, nothing of it is stored.
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs `body`, which only reads and needs no single snapshot: each statement sees what was
    /// committed when it ran.
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs `sql`, one statement that only reads, and maps its rows. Unlike ``read(_:)`` it may
    /// be sent together with other such reads waiting at the same time: PostgreSQL pipelines
    /// them on one connection, one round trip for all (``PostgresReadPipeline``). It sees what
    /// was committed when it ran; `map` runs on the connection's queue.
    func readStatement<T: Sendable>(
        _ sql: SQL, capacity: Int, _ map: @escaping @Sendable (Connection.Row) throws(StoreError) -> T
    ) async throws -> [T]

    /// Runs `body`, which only reads, against one snapshot: every statement of it sees the same
    /// committed state (an inbox page and its counts agree).
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T
}

extension SQLStore {
    // MARK: Settings

    package func setting(_ key: String) async throws -> String? {
        try await read { db in try AccountStatements.setting(key, db) }
    }

    package func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try await write { db in try AccountStatements.setSettingIfAbsent(key, value: value, db) }
    }

    package func sharedProviderToken(
        keyID: String, candidate: SharedProviderToken, staleBefore: Date, rejected: Set<String>
    ) async throws -> SharedProviderToken {
        try await write { db in
            try AccountStatements.sharedProviderToken(
                keyID: keyID, candidate: candidate, staleBefore: staleBefore, rejected: rejected, db)
        }
    }

    // MARK: API keys

    package func createAPIKey(_ key: APIKeyRecord) async throws {
        try await write { db in try AccountStatements.createAPIKey(key, db) }
    }

    package func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await read { db in try AccountStatements.apiKey(hash: hash, db) }
    }

    package func apiKeys() async throws -> [APIKeyRecord] {
        try await read { db in try AccountStatements.apiKeys(db) }
    }

    package func revokeAPIKey(id: String, at: Date) async throws -> APIKeyRevocation {
        try await write { db in try AccountStatements.revokeAPIKey(id: id, at: at, db) }
    }

    package func recordAPIKeyUse(id: String, at: Date) async throws {
        try await write { db in try AccountStatements.recordAPIKeyUse(id: id, at: at, db) }
    }

    // MARK: Console sessions

    package func createConsoleSession(_ session: ConsoleSessionRecord) async throws {
        try await write { db in try AccountStatements.createConsoleSession(session, db) }
    }

    package func consoleSession(hash: String, now: Date, idleBefore: Date, createdBefore: Date) async throws
        -> (session: ConsoleSessionRecord, key: APIKeyRecord)?
    {
        try await write { db in
            try AccountStatements.consoleSession(
                hash: hash, now: now, idleBefore: idleBefore, createdBefore: createdBefore, db)
        }
    }

    package func deleteConsoleSession(hash: String) async throws -> Bool {
        try await write { db in try AccountStatements.deleteConsoleSession(hash: hash, db) }
    }

    package func pruneConsoleSessions(idleBefore: Date, createdBefore: Date) async throws -> Int {
        try await pruneInBatches(
            AccountStatements.pruneConsoleSessionsBatch(idleBefore: idleBefore, createdBefore: createdBefore))
    }

    // MARK: Publishing

    package func publish(
        _ notifications: [NewNotification], message: NewMessage?, rules: PushRules, idempotency claim: IdempotencyClaim?
    ) async throws -> PublishOutcome {
        try await write { db in
            try InboxStatements.publish(notifications, message: message, rules: rules, idempotency: claim, db)
        }
    }

    // MARK: Messages

    package func message(id: String) async throws -> (record: MessageRecord, funnel: MessageFunnel)? {
        try await snapshot { db in try MessageStatements.message(id: id, db).map { (record: $0.0, funnel: $0.1) } }
    }

    package func messages(_ query: MessageQuery) async throws -> MessagePage {
        try await snapshot { db in try MessageStatements.page(query, db) }
    }

    package func cancelMessage(id: String, now: Date) async throws -> MessageCancellation? {
        try await write { db in try MessageStatements.cancel(id: id, now: now, db) }
    }

    package func publishDueScheduled(limit: Int, rules: PushRules, now: Date) async throws -> ScheduledPublishRun {
        try await write { db in try MessageStatements.publishDue(limit: limit, rules: rules, now: now, db) }
    }

    package func completeFinishedMessages(limit: Int, now: Date) async throws -> [String] {
        let finished = try await read { db in try MessageStatements.finished(limit: limit, db) }
        guard !finished.isEmpty else { return [] }
        return try await write { db in try MessageStatements.complete(finished, now: now, db) }
    }

    package func nextScheduledDue() async throws -> Date? {
        try await read { db in try MessageStatements.nextDue(db) }
    }

    package func sources(userID: String) async throws -> [ReceivedSource] {
        try await snapshot { db in
            let muted = try AccountStatements.storedPreferences(db, userID: userID)?.mutedSources ?? []
            return try MessageStatements.sources(userID: userID, mutedSources: muted, db)
        }
    }

    // MARK: Digests

    package func runDueDigests(limit: Int, template: DigestTemplate, catalog: Catalog, now: Date) async throws
        -> DigestRun
    {
        try await write { db in
            try DigestStatements.runDue(limit: limit, template: template, catalog: catalog, now: now, db)
        }
    }

    package func nextDigestDue() async throws -> Date? {
        try await read { db in try DigestStatements.nextDue(db) }
    }

    package func rescheduleDigest(userID: String, at: Date) async throws -> Bool {
        try await write { db in try DigestStatements.reschedule(userID: userID, at: at, db) }
    }

    // MARK: Inbox

    package func renderedInboxPage(userID: String, category: String?, beforeSeq: Int64?, limit: Int) async throws
        -> RenderedInboxPage
    {
        let limit = min(max(1, limit), 1_000)
        let query = InboxStatements.pageWithCountsQuery(
            userID: userID, category: category, beforeSeq: beforeSeq, limit: limit + 1, Connection.self)
        let rows = try await readStatement(query, capacity: limit + 2, InboxStatements.PageRow.init)
        return InboxStatements.page(rows, limit: limit)
    }

    package func notification(userID: String, id: String) async throws -> InboxNotification? {
        try await read { db in try InboxStatements.notification(userID: userID, id: id, db) }
    }

    package func markOpened(userID: String, id: String, at: Date) async throws -> Date? {
        try await write { db in try InboxStatements.markOpened(userID: userID, id: id, at: at, db) }
    }

    package func markRead(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try await write { db in try InboxStatements.markRead(userID: userID, id: id, at: at, db) }
    }

    package func markAllSeen(userID: String, at: Date) async throws -> Counts {
        try await write { db in try InboxStatements.markAllSeen(userID: userID, at: at, db) }
    }

    package func delete(userID: String, id: String, at: Date) async throws -> ChangeOutcome? {
        try await write { db in try InboxStatements.delete(userID: userID, id: id, at: at, db) }
    }

    package func counts(userID: String) async throws -> Counts {
        try await readStatement(InboxStatements.countsQuery(userID: userID), capacity: 1) {
            row throws(StoreError) in try Counts(row)
        }.first ?? Counts(unread: 0, unseen: 0)
    }

    // MARK: Publisher reads

    package func publishedNotification(id: String) async throws -> StoredNotification? {
        try await read { db in try InboxStatements.publishedNotification(id: id, db) }
    }

    package func deliveries(notificationID: String) async throws -> [DeliveryRecord] {
        try await read { db in try OutboxStatements.deliveries(notificationID: notificationID, db) }
    }

    // MARK: Push delivery outbox

    package func claimDueDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedDelivery] {
        let claim = Claim(now: now, lease: lease)
        return try await write { db in
            try DeliveryStatements.claimDue(
                limit: limit, now: now, claimToken: claim.token, leaseExpiry: claim.leaseExpiry, db)
        }
    }

    package func completeDelivery(id: String, claimToken: String, outcome: DeliveryOutcome, now: Date) async throws
        -> Bool
    {
        try await completeDeliveries([DeliveryCompletion(id: id, claimToken: claimToken, outcome: outcome)], now: now)
            == [true]
    }

    package func completeDeliveries(_ completions: [DeliveryCompletion], now: Date) async throws -> [Bool] {
        guard !completions.isEmpty else { return [] }
        return try await write { db in try DeliveryStatements.completeAll(completions, now: now, db) }
    }

    // MARK: Expo push receipts

    package func claimDueReceipts(limit: Int, now: Date, lease: TimeInterval) async throws -> [ClaimedReceipt] {
        let claim = Claim(now: now, lease: lease)
        return try await write { db in
            try DeliveryStatements.claimDueReceipts(
                limit: limit, now: now, claimToken: claim.token, leaseExpiry: claim.leaseExpiry, db)
        }
    }

    package func recordReceipts(_ receipts: [ReceiptOutcome], now: Date) async throws -> Int {
        guard !receipts.isEmpty else { return 0 }
        return try await write { db in try DeliveryStatements.recordReceipts(receipts, now: now, db) }
    }

    // MARK: Broadcasts

    package func createBroadcast(
        _ broadcast: NewBroadcast, idempotency claim: IdempotencyClaim?, maxActive: Int?
    ) async throws -> BroadcastCreation {
        try await write { db in
            try BroadcastStatements.create(broadcast, idempotency: claim, maxActive: maxActive, db)
        }
    }

    package func broadcast(id: String) async throws -> BroadcastRecord? {
        try await read { db in try BroadcastStatements.storedBroadcast(db, id: id) }
    }

    package func broadcasts(beforeSeq: Int64?, limit: Int) async throws -> BroadcastPage {
        let limit = min(max(1, limit), 1_000)
        return try await read { db in try BroadcastStatements.page(beforeSeq: beforeSeq, limit: limit, db) }
    }

    package func claimBroadcast(now: Date, lease: TimeInterval) async throws -> ClaimedBroadcast? {
        let claim = Claim(now: now, lease: lease)
        let claimed = try await write { db in
            try BroadcastStatements.claim(now: now, claimToken: claim.token, leaseExpiry: claim.leaseExpiry, db)
        }
        guard let claimed else { return nil }
        if claimed.needsTotal {
            // Counted outside the claim's transaction (on SQLite, on a reader), so neither the
            // writer nor the claim's row lock is held while every user is read.
            let known = try await read { db in try BroadcastStatements.knownUsersCount(db) }
            try await write { db in
                try BroadcastStatements.setTotal(known, id: claimed.id, claimToken: claim.token, db)
            }
        }
        return ClaimedBroadcast(id: claimed.id, claimToken: claim.token, leaseExpiresAt: claim.leaseExpiry)
    }

    package func fanOutBroadcastChunk(
        id: String, claimToken: String, limit: Int, rules: PushRules, now: Date, lease: TimeInterval
    ) async throws -> BroadcastChunk? {
        precondition(limit > 0, "a broadcast chunk must reach at least one user")
        let leaseExpiry = Claim(now: now, lease: lease).leaseExpiry
        return try await write { db in
            try BroadcastStatements.fanOutChunk(
                id: id, claimToken: claimToken, limit: limit, rules: rules, now: now, leaseExpiry: leaseExpiry, db)
        }
    }

    package func releaseBroadcast(id: String, claimToken: String, now: Date) async throws -> Bool {
        try await write { db in try BroadcastStatements.release(id: id, claimToken: claimToken, now: now, db) }
    }

    package func failBroadcast(id: String, claimToken: String, reason: String, now: Date) async throws -> Bool {
        try await write { db in
            try BroadcastStatements.fail(id: id, claimToken: claimToken, reason: reason, now: now, db)
        }
    }

    // MARK: Live-update log

    package func streamEvents(userID: String, afterSeq: Int64, limit: Int) async throws -> [StreamEventRecord] {
        let limit = max(0, limit)
        return try await readStatement(
            InboxStatements.streamEventsQuery(userID: userID, afterSeq: afterSeq, limit: limit), capacity: limit
        ) { row throws(StoreError) in try StreamEventRecord(row) }
    }

    package func latestStreamSeq(userID: String) async throws -> Int64 {
        try await readStatement(InboxStatements.latestStreamSeqQuery(userID: userID), capacity: 1) {
            row throws(StoreError) in try row.optionalInt64("latest")
        }.first.flatMap { $0 } ?? 0
    }

    package func pruneStreamEvents(olderThan: Date) async throws -> Int {
        try await pruneInBatches(InboxStatements.pruneStreamEventsBatch(olderThan: olderThan))
    }

    package func pruneIdempotencyKeys(olderThan: Date) async throws -> Int {
        try await pruneInBatches(InboxStatements.pruneIdempotencyKeysBatch(olderThan: olderThan, Connection.self))
    }

    /// Runs `delete` (which removes at most ``InboxStatements/pruneBatch`` rows) in its own
    /// transactions until nothing is left, so no transaction holds the writer for long; answers
    /// the rows removed.
    func pruneInBatches(_ delete: SQL) async throws -> Int {
        var total = 0
        while true {
            let removed = try await write { db in try db.change(delete) }
            total += removed
            if removed < InboxStatements.pruneBatch { return total }
        }
    }

    // MARK: Preferences

    package func preferences(userID: String) async throws -> Preferences? {
        try await read { db in try AccountStatements.storedPreferences(db, userID: userID) }
    }

    package func updatePreferences(
        userID: String, initial: Preferences, _ update: @Sendable (inout Preferences) throws -> Void
    ) async throws -> Preferences {
        try await withoutActuallyEscaping(update) { update in
            try await write { db in
                // The row is created first (undone if `update` throws) so that the locking read
                // below serializes read-modify-write cycles of other processes on it.
                try AccountStatements.storePreferences(db, userID: userID, initial, replacing: false)
                guard var preferences = try AccountStatements.storedPreferences(db, userID: userID, locking: true)
                else {
                    throw StoreError(code: .invalidStoredValue, message: "preferences row missing after insert")
                }
                try update(&preferences)
                try AccountStatements.storePreferences(db, userID: userID, preferences, replacing: true)
                return preferences
            }
        }
    }

    // MARK: Devices

    package func upsertDevice(userID: String, _ registration: DeviceRegistration, at: Date) async throws -> Device {
        try await write { db in try AccountStatements.upsertDevice(userID: userID, registration, at: at, db) }
    }

    package func deleteDevice(userID: String, token: String) async throws -> Bool {
        try await write { db in try AccountStatements.deleteDevice(userID: userID, token: token, db) }
    }

    package func devices(userID: String) async throws -> [Device] {
        try await read { db in try AccountStatements.devices(userID: userID, db) }
    }

    // MARK: Live Activities

    package func registerLiveActivityToken(
        userID: String, _ registration: LiveActivityTokenRegistration, at: Date
    ) async throws -> LiveActivityToken? {
        try await write { db in try LiveActivityStatements.register(userID: userID, registration, at: at, db) }
    }

    package func releaseSnoozedDeliveries(userID: String, due: Date, now: Date) async throws -> Int {
        try await write { db in
            try db.change(
                """
                UPDATE deliveries SET next_attempt_at = \(due), updated_at = \(now)
                WHERE user_id = \(userID) AND status = \(DeliveryStatus.deferred.rawValue)
                    AND reason = \(DeliveryDeferReason.snoozed) AND next_attempt_at > \(due)
                """)
        }
    }

    package func deleteLiveActivityToken(userID: String, token: String) async throws -> Bool {
        try await write { db in try LiveActivityStatements.delete(userID: userID, token: token, db) }
    }

    package func liveActivityTokens(userID: String) async throws -> [LiveActivityToken] {
        try await read { db in try LiveActivityStatements.tokens(userID: userID, db) }
    }

    package func pushLiveActivity(_ push: NewLiveActivityPush) async throws -> LiveActivityPushOutcome {
        try await write { db in try LiveActivityStatements.push(push, db) }
    }

    package func liveActivityDeliveries(activityID: String) async throws -> [DeliveryRecord]? {
        try await snapshot { db in try LiveActivityStatements.deliveries(activityID: activityID, db) }
    }

    // MARK: Analytics

    package func insertEvents(userID: String, _ events: [AnalyticsEvent], receivedAt: Date) async throws {
        guard !events.isEmpty else { return }
        try await write { db in
            try AccountStatements.insertEvents(userID: userID, events, receivedAt: receivedAt, db)
        }
    }

    package func eventCount(userID: String) async throws -> Int {
        try await read { db in try AccountStatements.eventCount(userID: userID, db) }
    }

    // MARK: App config

    package func appConfigRecord() async throws -> AppConfigRecord {
        try await read { db in try AccountStatements.appConfig(db) }
    }

    package func setAppConfig(_ document: AppConfigDocument, at: Date, ifVersion: Int?) async throws
        -> AppConfigRecord?
    {
        let text = try StoreJSON.encode(document)
        return try await write { db in
            try AccountStatements.setAppConfig(encoded: text, at: at, ifVersion: ifVersion, db)
        }
    }

    // MARK: Publisher reads

    package func notifications(_ query: NotificationQuery) async throws -> NotificationSummaryPage {
        var bounded = query
        bounded.limit = min(max(1, query.limit), 1_000)
        let checked = bounded
        return try await read { db in try PublisherStatements.notifications(checked, db) }
    }

    package func deliveries(userID: String, notificationLimit: Int) async throws -> [DeliveryRecord] {
        let limit = min(max(1, notificationLimit), 1_000)
        return try await read { db in try PublisherStatements.deliveries(userID: userID, limit: limit, db) }
    }

    package func deliveryBuckets(since: Date, bucketSeconds: Int) async throws -> [DeliveryBucket] {
        try await read { db in
            try PublisherStatements.deliveryBuckets(since: since, bucketSeconds: max(1, bucketSeconds), db)
        }
    }

    package func deviceTallies() async throws -> [DeviceTally] {
        try await read { db in try PublisherStatements.deviceTallies(db) }
    }

    package func knownUserCount() async throws -> Int {
        try await read { db in try BroadcastStatements.knownUsersCount(db) }
    }

    // MARK: Readiness

    package func ping() async throws {
        try await read { db in try AccountStatements.ping(db) }
    }
}

/// A new claim's token and the end of its lease, in stored (millisecond) precision.
struct Claim {
    let token = UUID().uuidString.lowercased()
    let leaseExpiry: Date

    init(now: Date, lease: TimeInterval) {
        leaseExpiry = StoreTime.date(StoreTime.milliseconds(now.addingTimeInterval(lease)))
    }
}
