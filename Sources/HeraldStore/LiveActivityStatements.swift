import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Live Activities on either store: the app's tokens, the activities, and their pushes, which
/// go out through the delivery outbox as rows of kind `liveActivity` (one per token), so the
/// worker sends, retries and prunes them as it does notifications.
enum LiveActivityStatements {
    static let tokenColumns: SQL = """
        token, kind, user_id, attributes_type, activity_id, environment, active, created_at, updated_at, app_id
        """

    static let activityColumns: SQL = "id, user_id, attributes_type, created_at, updated_at, ended_at"

    // MARK: Tokens

    /// Upserts the token for `userID` (a token registered under another user moves to this one and
    /// becomes active). An update token also records its activity for `userID`; nil, and nothing
    /// written, when the activity is another user's (an app cannot take over someone's activity by
    /// naming its id). Every device the activity started on registers a token of its own, so a
    /// new token retires none: one ActivityKit replaced is pruned when APNs calls it dead.
    static func register(
        userID: String, _ registration: LiveActivityTokenRegistration, at: Date, _ db: some StoreConnection
    ) throws(StoreError) -> LiveActivityToken? {
        let kind = registration.resolvedKind
        let environment = registration.environment ?? .production
        if kind == .update, let activityID = registration.activityId {
            let owned = try db.queryOne(
                """
                INSERT INTO live_activities (\(activityColumns))
                VALUES (\(activityID), \(userID), \(registration.attributesType), \(at), \(at), NULL)
                ON CONFLICT (id) DO UPDATE SET attributes_type = excluded.attributes_type,
                    updated_at = excluded.updated_at
                WHERE live_activities.user_id = excluded.user_id
                RETURNING id
                """
            ) { row throws(StoreError) in try row.text("id") }
            guard owned != nil else { return nil }
        }
        let token = try db.queryOne(
            """
            INSERT INTO live_activity_tokens (\(tokenColumns))
            VALUES (\(registration.token), \(kind.rawValue), \(userID), \(registration.attributesType),
                    \(registration.activityId), \(environment.rawValue), 1, \(at), \(at),
                    \(registration.appId ?? DeviceRegistration.defaultAppID))
            ON CONFLICT (token) DO UPDATE SET
                created_at = CASE WHEN live_activity_tokens.user_id = excluded.user_id
                                  THEN live_activity_tokens.created_at ELSE excluded.created_at END,
                kind = excluded.kind,
                user_id = excluded.user_id,
                attributes_type = excluded.attributes_type,
                activity_id = excluded.activity_id,
                environment = excluded.environment,
                app_id = excluded.app_id,
                active = 1,
                updated_at = excluded.updated_at
            RETURNING \(tokenColumns)
            """
        ) { row throws(StoreError) in try tokenRecord(row) }
        guard let token else {
            throw StoreError(code: .invalidStoredValue, message: "live activity token upsert returned no row")
        }
        return token
    }

    /// Deletes `token` if it is `userID`'s; another user's token is never touched.
    static func delete(userID: String, token: String, _ db: some StoreConnection) throws(StoreError) -> Bool {
        try db.change("DELETE FROM live_activity_tokens WHERE token = \(token) AND user_id = \(userID)") > 0
    }

    /// The user's tokens, most recently changed first (then newest first).
    static func tokens(userID: String, _ db: some StoreConnection) throws(StoreError) -> [LiveActivityToken] {
        try db.query(
            """
            SELECT \(tokenColumns) FROM live_activity_tokens WHERE user_id = \(userID)
            ORDER BY updated_at DESC, created_at DESC, token
            """
        ) { row throws(StoreError) in try tokenRecord(row) }
    }

    private static func tokenRecord(_ row: some StoreRow) throws(StoreError) -> LiveActivityToken {
        try LiveActivityToken(
            token: row.text("token"), kind: row.enumValue(LiveActivityTokenKind.self, "kind"),
            attributesType: row.text("attributes_type"), activityId: row.optionalText("activity_id"),
            userId: row.text("user_id"), environment: row.enumValue(PushEnvironment.self, "environment"),
            active: row.bool("active"), createdAt: row.date("created_at"), updatedAt: row.date("updated_at"),
            appId: row.text("app_id"))
    }

    // MARK: Pushes

    /// Writes `push` and its delivery rows; see ``HeraldStore/pushLiveActivity(_:)``.
    ///
    /// A start that finds no push-to-start token records no activity, so the publisher may start
    /// the same id again once the app registered one; its push and its skipped row are kept.
    static func push(_ push: NewLiveActivityPush, _ db: some StoreConnection) throws -> LiveActivityPushOutcome {
        let content = push.content
        let existing = try activity(id: push.activityID, db)
        var activity: LiveActivityRecord
        if content.event == .start {
            guard existing == nil else { return .activityExists }
            guard let userID = push.userID, let attributesType = content.attributesType else {
                throw StoreError(code: .invalidStoredValue, message: "a start names its user and attributes type")
            }
            activity = LiveActivityRecord(
                id: push.activityID, userID: userID, attributesType: attributesType, createdAt: push.createdAt,
                updatedAt: push.createdAt, endedAt: nil)
        } else {
            guard let existing else { return .unknownActivity }
            if content.event == .update, existing.endedAt != nil { return .activityEnded }
            activity = existing
            activity.updatedAt = push.createdAt
            if content.event == .end { activity.endedAt = push.createdAt }
        }
        // A start reaches every device of the user with a push-to-start token for the type; an
        // update or end, the tokens of the activity (one per device it runs on).
        let targets: SQL =
            content.event == .start
            ? """
            kind = \(LiveActivityTokenKind.pushToStart.rawValue) AND user_id = \(activity.userID)
            AND attributes_type = \(activity.attributesType)
            """
            : """
            kind = \(LiveActivityTokenKind.update.rawValue) AND user_id = \(activity.userID)
            AND activity_id = \(activity.id)
            """
        let tokens = try db.query(
            """
            SELECT token, environment, app_id FROM live_activity_tokens WHERE \(targets) AND active = 1
            ORDER BY token
            """
        ) { row throws(StoreError) in
            try (token: row.text("token"), environment: row.text("environment"), app: row.text("app_id"))
        }
        if content.event == .start {
            if !tokens.isEmpty {
                // Two starts of one id at once: the second finds the row the first wrote.
                let inserted = try db.queryOne(
                    """
                    INSERT INTO live_activities (\(activityColumns))
                    VALUES (\(activity.id), \(activity.userID), \(activity.attributesType), \(push.createdAt),
                            \(push.createdAt), NULL)
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """
                ) { row throws(StoreError) in try row.text("id") }
                guard inserted != nil else { return .activityExists }
            }
        } else {
            try db.execute(
                """
                UPDATE live_activities SET updated_at = \(push.createdAt), ended_at = \(activity.endedAt)
                WHERE id = \(activity.id)
                """)
        }
        try db.execute(
            """
            INSERT INTO live_activity_pushes (id, activity_id, user_id, event, content, created_at)
            VALUES (\(push.id), \(activity.id), \(activity.userID), \(content.event.rawValue),
                    \(try StoreJSON.encode(content)), \(push.createdAt))
            """)
        let expires = push.ttlSeconds.map { push.createdAt.addingTimeInterval(Double($0)) }
        var random = SystemRandomNumberGenerator()
        var row = NewDeliveryRow(
            id: "", notificationID: push.id, userID: activity.userID, kind: DeliveryKind.liveActivity,
            status: .skipped, reason: DeliverySkipReason.noDevice, expiresAt: expires, createdAt: push.createdAt)
        if tokens.isEmpty {
            row.id = TimeOrderedID.make(using: &random)
            try row.insert(db)
        }
        for target in tokens {
            row.id = TimeOrderedID.make(using: &random)
            row.target = (target.token, PushProvider.apns.rawValue, DevicePlatform.ios.rawValue, target.environment)
            row.appID = target.app
            row.status = .queued
            row.reason = nil
            row.due = push.createdAt
            try row.insert(db)
        }
        return .queued(activity, deliveries: try OutboxStatements.deliveries(notificationID: push.id, db))
    }

    static func activity(id: String, _ db: some StoreConnection) throws(StoreError) -> LiveActivityRecord? {
        try db.queryOne("SELECT \(activityColumns) FROM live_activities WHERE id = \(id)") { row throws(StoreError) in
            try LiveActivityRecord(
                id: row.text("id"), userID: row.text("user_id"), attributesType: row.text("attributes_type"),
                createdAt: row.date("created_at"), updatedAt: row.date("updated_at"),
                endedAt: row.optionalDate("ended_at"))
        }
    }

    /// The delivery rows of every push of activity `id`, oldest first; `nil` for an unknown activity.
    static func deliveries(activityID: String, _ db: some StoreConnection) throws -> [DeliveryRecord]? {
        guard try activity(id: activityID, db) != nil else { return nil }
        return try OutboxStatements.deliveries(liveActivityID: activityID, db)
    }
}
