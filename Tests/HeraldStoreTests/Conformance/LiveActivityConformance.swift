import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Live Activities: tokens, activities and their pushes through the delivery outbox, checked the
/// same way against each store. Each check gets a fresh store.
enum LiveActivityConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case registerTokens =
        "tokens upsert by token and move between users; each device's update token of one activity stays active"
    case activityOwner =
        "an update token naming another user's activity is refused and changes nothing; a start id is free until a device was reached"
    case startGoesToPushToStartTokens =
        "a start records the activity and queues one liveActivity row per active push-to-start token of the type"
    case updateGoesToActivityToken = "an update queues one row for the activity's active update token"
    case refusals = "an unknown activity, an update after the end and a taken activity id write nothing"
    case noToken = "a push with no active token gets one skipped no_device row"
    case claimCarriesContent = "a claim hands the worker the push's content; an inactive token is skipped"
    case pruneDeactivatesToken = "a pruned delivery deactivates the activity token, never the device"

    var testDescription: String { rawValue }

    static let startToken = String(repeating: "a", count: 64)
    static let otherStartToken = String(repeating: "b", count: 64)
    static let updateToken = String(repeating: "c", count: 64)
    static let newerUpdateToken = String(repeating: "d", count: 64)

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .registerTokens:
            let start = try #require(try await store.registerStartToken(Self.startToken))
            #expect(start.kind == .pushToStart && start.activityId == nil && start.active && start.userId == "u1")
            #expect(start.environment == .production && start.createdAt == at(-60))
            let moved = try await store.registerLiveActivityToken(
                userID: "u2",
                LiveActivityTokenRegistration(token: Self.startToken, attributesType: "Delivery", kind: .pushToStart),
                at: at(-30))
            #expect(moved?.userId == "u2" && moved?.createdAt == at(-30), "a token seen under another user moves")
            _ = try await store.registerUpdateToken(Self.updateToken, activity: "act-1")
            _ = try await store.registerUpdateToken(Self.newerUpdateToken, activity: "act-1", at: at(-10))
            let tokens = try await store.liveActivityTokens(userID: "u1")
            #expect(tokens.map(\.token) == [Self.newerUpdateToken, Self.updateToken])
            #expect(tokens.map(\.active) == [true, true], "the phone's and the tablet's token both stay")
            #expect(tokens.allSatisfy { $0.activityId == "act-1" && $0.kind == .update })
            guard case .queued(_, let deliveries) = try await store.pushLiveActivity(Self.change("p1", .update)) else {
                Issue.record("not queued")
                return
            }
            #expect(Set(deliveries.compactMap(\.deviceToken)) == [Self.updateToken, Self.newerUpdateToken])
        case .activityOwner:
            _ = try await store.registerUpdateToken(Self.updateToken, activity: "act-1")
            let theft = try await store.registerLiveActivityToken(
                userID: "u2",
                LiveActivityTokenRegistration(
                    token: Self.newerUpdateToken, attributesType: "Other", activityId: "act-1"),
                at: at(-10))
            #expect(theft == nil)
            #expect(try await store.liveActivityTokens(userID: "u2").isEmpty)
            guard
                case .queued(let activity, let deliveries) = try await store.pushLiveActivity(
                    Self.change("p1", .update))
            else {
                Issue.record("not queued")
                return
            }
            #expect(activity.userID == "u1" && activity.attributesType == "Delivery")
            #expect(deliveries.map(\.deviceToken) == [Self.updateToken])
            // A start that reached nobody leaves its id free; once a device can be reached, it starts.
            guard
                case .queued(_, let nobody) = try await store.pushLiveActivity(Self.start(id: "s1", activity: "act-2"))
            else {
                Issue.record("not queued")
                return
            }
            #expect(nobody.map(\.status) == [.skipped])
            #expect(try await store.liveActivityDeliveries(activityID: "act-2") == nil)
            _ = try await store.registerStartToken(Self.startToken)
            guard
                case .queued(_, let reached) = try await store.pushLiveActivity(Self.start(id: "s2", activity: "act-2"))
            else {
                Issue.record("not queued")
                return
            }
            #expect(reached.map(\.status) == [.queued])
            #expect(try await store.pushLiveActivity(Self.start(id: "s3", activity: "act-2")) == .activityExists)
        case .startGoesToPushToStartTokens:
            _ = try await store.registerStartToken(Self.startToken)
            _ = try await store.registerStartToken(Self.otherStartToken, environment: .development)
            _ = try await store.registerStartToken(String(repeating: "e", count: 64), type: "Score")
            let outcome = try await store.pushLiveActivity(Self.start())
            guard case .queued(let activity, let deliveries) = outcome else {
                Issue.record("not queued: \(outcome)")
                return
            }
            #expect(activity.userID == "u1" && activity.attributesType == "Delivery" && activity.endedAt == nil)
            #expect(deliveries.map(\.deviceToken) == [Self.startToken, Self.otherStartToken])
            #expect(deliveries.map(\.environment) == [.production, .development])
            #expect(deliveries.allSatisfy { $0.status == .queued && $0.nextAttemptAt == t0 && $0.expiresAt == at(600) })
            #expect(deliveries.allSatisfy { $0.notificationID == "p1" && $0.provider == .apns && $0.platform == .ios })
            #expect(deliveries.allSatisfy { $0.deviceActive == true })
            #expect(try await store.liveActivityDeliveries(activityID: "act-1")?.map(\.id) == deliveries.map(\.id))
        case .updateGoesToActivityToken:
            _ = try await store.registerUpdateToken(Self.updateToken, activity: "act-1")
            let outcome = try await store.pushLiveActivity(Self.change("p2", .update))
            guard case .queued(let activity, let deliveries) = outcome else {
                Issue.record("not queued: \(outcome)")
                return
            }
            #expect(activity.id == "act-1" && activity.userID == "u1" && activity.updatedAt == t0)
            #expect(deliveries.map(\.deviceToken) == [Self.updateToken] && deliveries.first?.status == .queued)
            let end = try await store.pushLiveActivity(Self.change("p3", .end))
            guard case .queued(let ended, _) = end else {
                Issue.record("not queued: \(end)")
                return
            }
            #expect(ended.endedAt == t0)
            #expect(try await store.liveActivityDeliveries(activityID: "act-1")?.count == 2)
        case .refusals:
            #expect(try await store.pushLiveActivity(Self.change("p1", .update)) == .unknownActivity)
            #expect(try await store.liveActivityDeliveries(activityID: "act-1") == nil)
            _ = try await store.registerUpdateToken(Self.updateToken, activity: "act-1")
            _ = try await store.pushLiveActivity(Self.change("p2", .end))
            #expect(try await store.pushLiveActivity(Self.change("p3", .update)) == .activityEnded)
            #expect(try await store.pushLiveActivity(Self.start(id: "p4")) == .activityExists)
            #expect(try await store.liveActivityDeliveries(activityID: "act-1")?.count == 1)
            let written = try await store.read { db in
                try db.queryOne("SELECT COUNT(*) AS n FROM live_activity_pushes") { row throws(StoreError) in
                    try row.int("n")
                }
            }
            #expect(written == 1)
        case .noToken:
            _ = try await store.registerStartToken(Self.startToken, type: "Score")
            guard case .queued(_, let deliveries) = try await store.pushLiveActivity(Self.start()) else {
                Issue.record("not queued")
                return
            }
            #expect(deliveries.count == 1)
            #expect(deliveries.first?.status == .skipped && deliveries.first?.reason == "no_device")
            #expect(deliveries.first?.deviceToken == nil && deliveries.first?.nextAttemptAt == nil)
        case .claimCarriesContent:
            _ = try await store.registerStartToken(Self.startToken)
            _ = try await store.registerStartToken(Self.otherStartToken)
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"])
            _ = try await store.pushLiveActivity(Self.start())
            try await store.write { db in
                try db.execute("UPDATE live_activity_tokens SET active = 0 WHERE token = \(Self.otherStartToken)")
            }
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            #expect(claimed.count == 2, "the alert and the live push to the active token")
            #expect(claimed.first { $0.deviceToken == "phone" }?.liveActivity == nil)
            let live = try #require(claimed.first { $0.deviceToken == Self.startToken })
            #expect(live.liveActivity == Self.content(.start))
            #expect(live.notification.id == "p1" && live.attempts == 1 && live.expiresAt == at(600))
            let skipped = try await store.liveActivityDeliveries(activityID: "act-1")?
                .first { $0.deviceToken == Self.otherStartToken }
            #expect(skipped?.status == .skipped && skipped?.reason == "device_inactive")
        case .pruneDeactivatesToken:
            // A device and an activity token that happen to share the token text.
            try await store.addDevice(Self.updateToken)
            _ = try await store.registerUpdateToken(Self.updateToken, activity: "act-1")
            _ = try await store.pushLiveActivity(Self.change("p1", .update))
            let claim = try #require(try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30).first)
            let held = try await store.completeDelivery(
                id: claim.id, claimToken: claim.claimToken, outcome: .pruned(reason: "Unregistered"), now: at(2))
            #expect(held)
            #expect(try await store.liveActivityTokens(userID: "u1").first?.active == false)
            #expect(try await store.devices(userID: "u1").first?.active == true, "the device is not touched")
            let row = try await store.liveActivityDeliveries(activityID: "act-1")?.first
            #expect(row?.status == .failed && row?.reason == "Unregistered" && row?.deviceActive == false)
        }
    }

    static func content(_ event: LiveActivityEvent) -> LiveActivityContent {
        LiveActivityContent(
            event: event, timestamp: t0, attributesType: event == .start ? "Delivery" : nil,
            attributes: event == .start ? ["orderId": .string("o-1")] : nil,
            contentState: ["stops": .number(3), "status": .string("on the way")],
            alert: event == .start ? LiveActivityAlert(title: "On its way", body: "3 stops to go") : nil)
    }

    static func start(id: String = "p1", activity: String = "act-1") -> NewLiveActivityPush {
        NewLiveActivityPush(
            id: id, activityID: activity, userID: "u1", content: content(.start), ttlSeconds: 600, createdAt: t0)
    }

    static func change(_ id: String, _ event: LiveActivityEvent) -> NewLiveActivityPush {
        NewLiveActivityPush(id: id, activityID: "act-1", content: content(event), createdAt: t0)
    }
}

extension HeraldStore {
    func registerStartToken(
        _ token: String, type: String = "Delivery", environment: PushEnvironment? = nil, at time: Date = at(-60)
    ) async throws -> LiveActivityToken? {
        try await registerLiveActivityToken(
            userID: "u1",
            LiveActivityTokenRegistration(
                token: token, attributesType: type, kind: .pushToStart, environment: environment),
            at: time)
    }

    func registerUpdateToken(_ token: String, activity: String, at time: Date = at(-60)) async throws
        -> LiveActivityToken?
    {
        try await registerLiveActivityToken(
            userID: "u1", LiveActivityTokenRegistration(token: token, attributesType: "Delivery", activityId: activity),
            at: time)
    }
}

@Suite("Live Activities conformance: SQLite")
struct SQLiteLiveActivityConformanceTests {
    @Test("SQLite store", arguments: LiveActivityConformanceCheck.allCases)
    func conforms(_ check: LiveActivityConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Live Activities conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresLiveActivityConformanceTests {
    @Test("PostgreSQL store", arguments: LiveActivityConformanceCheck.allCases)
    func conforms(_ check: LiveActivityConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
