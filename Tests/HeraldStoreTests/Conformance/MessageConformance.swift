import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Messages, scheduled notifications, cancels, sources, frequency caps and digests: behaviour every
/// store must have, checked the same way against each store (see ``ConformanceCheck``). Each check
/// gets a fresh store.
enum MessageConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case funnel = "a message's funnel counts its notifications, pushes by status and reason, opens and reads"
    case scheduledInvisible =
        "a scheduled notification is invisible (inbox, counts, stream, pushes) until published at its time"
    case localTimeZones = "deliverAt local times use the preferences' zone, else the newest device's, else UTC"
    case cancel = "cancel forgets scheduled notifications and skips unsent pushes as cancelled, once"
    case messagePage = "messages list newest first, filtered, paged, scheduled ones on their own"
    case sources = "the sources list is most recent first with the newest name and the mutes"
    case sourceMuted = "a muted source's pushes are skipped as source_muted; the account category's pass"
    case frequencyCap = "a push over its category's cap is throttled; other categories and the period's end pass"
    case digest = "digest pushes are held, then summed up once in one summary push per device at the digest time"
    case digestReschedule = "rescheduling a pending digest moves it; with none pending it says so"
    case completion =
        "a message completes once nothing is scheduled, pending or held, each once; a cancelled one completes too"

    var testDescription: String { rawValue }

    static let rules = PushRules(catalog: .standard)

    /// A message of `ids` to `users` (one each) with push, created at `createdAt`.
    static func message(
        _ store: some HeraldStore, id: String, ids: [String], users: [String]? = nil, type: String = "order.shipped",
        category: String? = "orders", source: NotificationSource? = nil, schedule: MessageSchedule? = nil,
        push: PushOptions? = PushOptions(send: true), rules: PushRules = rules, createdAt: Date = t0
    ) async throws -> PublishOutcome {
        let notifications = ids.enumerated().map { index, notificationID in
            var notification = note(
                notificationID, user: users?[index] ?? "u1", type: type, category: category, createdAt: createdAt,
                push: push)
            notification.messageID = id
            notification.source = source
            return notification
        }
        let message = NewMessage(
            id: id, type: type, title: "Title", category: category, source: source, schedule: schedule,
            createdAt: createdAt)
        return try await store.publish(notifications, message: message, rules: rules, idempotency: nil)
    }

    func run(on store: some MigratedStore) async throws {
        let rules = Self.rules
        switch self {
        case .funnel:
            try await store.addDevice("phone")
            _ = try await Self.message(store, id: "m1", ids: ["n1", "n2"], users: ["u1", "u2"])
            #expect(try await store.markOpened(userID: "u1", id: "n1", at: at(5)) == at(5))
            _ = try await store.markRead(userID: "u2", id: "n2", at: at(6))
            let (record, funnel) = try #require(try await store.message(id: "m1"))
            #expect(record.kind == .publish && record.type == "order.shipped" && record.createdAt == t0)
            #expect(funnel.recipients == 2 && funnel.published == 2 && funnel.scheduled == 0)
            #expect(funnel.pushes[.queued] == 1 && funnel.pushes[.skipped] == 1 && funnel.pushes[.sent] == 0)
            #expect(funnel.skippedByReason == ["no_device": 1])
            #expect(funnel.opened == 1 && funnel.read == 1)
            #expect(try await store.message(id: "m2") == nil)
        case .scheduledInvisible:
            try await store.addDevice("phone")
            let outcome = try await Self.message(store, id: "m1", ids: ["n1"], schedule: .at(at(3_600)))
            #expect(outcome == .scheduled(sendAt: [at(3_600)]))
            #expect(try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 10).items.isEmpty)
            #expect(try await store.counts(userID: "u1") == counts(0, 0))
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).isEmpty)
            #expect(try await store.deliveries(notificationID: "n1").isEmpty)
            #expect(try await store.nextScheduledDue() == at(3_600))
            #expect(try await store.publishDueScheduled(limit: 10, rules: rules, now: at(3_599)).published == 0)
            let run = try await store.publishDueScheduled(limit: 10, rules: rules, now: at(3_601))
            #expect(run == ScheduledPublishRun(published: 1, wroteDeliveries: true))
            let page = try await store.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 10)
            #expect(page.items.map(\.id) == ["n1"] && page.items.first?.createdAt == at(3_601))
            #expect(try await store.counts(userID: "u1") == counts(1, 1))
            #expect(try await store.streamEvents(userID: "u1", afterSeq: 0, limit: 10).count == 1)
            #expect(try await store.deliverySummary("n1") == [Summary(token: "phone", status: .queued)])
            #expect(try await store.publishDueScheduled(limit: 10, rules: rules, now: at(7_200)).published == 0)
            #expect(try await store.nextScheduledDue() == nil)
            #expect(try await store.message(id: "m1")?.funnel.published == 1)
        case .localTimeZones:
            try await store.setPreferences("tokyo") { $0.timeZone = "Asia/Tokyo" }
            _ = try await store.upsertDevice(
                userID: "ny",
                DeviceRegistration(token: "ny-phone", provider: .apns, platform: .ios, timeZone: "America/New_York"),
                at: at(-60))
            // t0 is 2023-11-14 22:13:20 UTC.
            let outcome = try await Self.message(
                store, id: "m1", ids: ["n1", "n2", "n3"], users: ["tokyo", "ny", "nowhere"],
                schedule: .localTime("09:30"))
            #expect(
                outcome
                    == .scheduled(sendAt: [
                        Date(timeIntervalSince1970: 1_700_008_200),  // 2023-11-15 09:30 +09:00
                        Date(timeIntervalSince1970: 1_700_058_600),  // 2023-11-15 09:30 -05:00
                        Date(timeIntervalSince1970: 1_700_040_600),  // 2023-11-15 09:30 UTC
                    ]))
        case .cancel:
            try await store.addDevice("phone")
            _ = try await Self.message(store, id: "m1", ids: ["n1", "n2"], users: ["u1", "u2"], schedule: .at(at(60)))
            let first = try #require(try await store.cancelMessage(id: "m1", now: at(10)))
            #expect(first == MessageCancellation(scheduled: 2, pushes: 0, cancelledAt: at(10)))
            #expect(try await store.publishDueScheduled(limit: 10, rules: rules, now: at(61)).published == 0)
            #expect(
                try await store.cancelMessage(id: "m1", now: at(20))
                    == MessageCancellation(scheduled: 0, pushes: 0, cancelledAt: at(10)))
            try await store.setPreferences { $0.snoozedUntil = at(3_600) }
            _ = try await Self.message(store, id: "m2", ids: ["n3"])
            #expect(
                try await store.deliverySummary("n3") == [Summary(token: "phone", status: .deferred, reason: "snoozed")]
            )
            #expect(try await store.cancelMessage(id: "m2", now: at(30))?.pushes == 1)
            #expect(
                try await store.deliverySummary("n3") == [
                    Summary(token: "phone", status: .skipped, reason: "cancelled")
                ])
            #expect(try await store.claimDueDeliveries(limit: 10, now: at(3_601), lease: 30).isEmpty)
            #expect(try await store.cancelMessage(id: "nope", now: at(30)) == nil)
        case .messagePage:
            _ = try await Self.message(store, id: "m1", ids: ["n1"], push: nil)
            _ = try await Self.message(store, id: "m2", ids: ["n2"], type: "promo.flash", push: nil)
            _ = try await Self.message(store, id: "m3", ids: ["n3"], schedule: .at(at(600)), push: nil)
            let all = try await store.messages(MessageQuery(limit: 10))
            #expect(all.items.map(\.record.id) == ["m3", "m2", "m1"] && !all.hasMore)
            let first = try await store.messages(MessageQuery(limit: 2))
            #expect(first.items.map(\.record.id) == ["m3", "m2"] && first.hasMore)
            let rest = try await store.messages(MessageQuery(limit: 2, beforeSeq: first.items.last?.record.seq))
            #expect(rest.items.map(\.record.id) == ["m1"])
            #expect(
                try await store.messages(MessageQuery(limit: 10, type: "promo.flash")).items.map(\.record.id) == ["m2"])
            let scheduled = try await store.messages(MessageQuery(limit: 10, scheduledOnly: true))
            #expect(scheduled.items.map(\.record.id) == ["m3"] && scheduled.items.first?.funnel.scheduled == 1)
            #expect(scheduled.items.first?.record.sendAt == at(600))
        case .sources:
            let github = NotificationSource(id: "github", name: "GitHub")
            _ = try await Self.message(store, id: "m1", ids: ["n1"], source: github, push: nil)
            _ = try await Self.message(
                store, id: "m2", ids: ["n2"], source: NotificationSource(id: "jira", name: "Jira"), push: nil,
                createdAt: at(1))
            _ = try await Self.message(
                store, id: "m3", ids: ["n3"], source: NotificationSource(id: "github", name: "GitHub EE"), push: nil,
                createdAt: at(2))
            _ = try await Self.message(store, id: "m4", ids: ["n4"], push: nil, createdAt: at(3))
            try await store.setPreferences { $0.mutedSources = ["jira"] }
            #expect(
                try await store.sources(userID: "u1") == [
                    ReceivedSource(id: "github", name: "GitHub EE", muted: false, lastReceivedAt: at(2)),
                    ReceivedSource(id: "jira", name: "Jira", muted: true, lastReceivedAt: at(1)),
                ])
            #expect(try await store.sources(userID: "u2").isEmpty)
        case .sourceMuted:
            try await store.addDevice("phone")
            try await store.setPreferences { $0.mutedSources = ["github"] }
            let github = NotificationSource(id: "github", name: "GitHub")
            _ = try await Self.message(store, id: "m1", ids: ["n1"], source: github)
            _ = try await Self.message(
                store, id: "m2", ids: ["n2"], type: "account.login", category: "account", source: github)
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .skipped, reason: "source_muted")
                ])
            #expect(try await store.deliverySummary("n2") == [Summary(token: "phone", status: .queued)])
            #expect(try await store.message(id: "m1")?.funnel.skippedByReason == ["source_muted": 1])
        case .frequencyCap:
            try await store.addDevice("phone")
            let capped = PushRules(
                catalog: .standard, frequencyCaps: [FrequencyCap(category: "promotions", max: 2, periodSeconds: 600)])
            for (index, time) in [0.0, 10, 20].enumerated() {
                _ = try await Self.message(
                    store, id: "m\(index)", ids: ["p\(index)"], type: "promo.flash", category: "promotions",
                    rules: capped, createdAt: at(time))
            }
            _ = try await Self.message(store, id: "o1", ids: ["o1"], rules: capped, createdAt: at(30))
            _ = try await Self.message(
                store, id: "m9", ids: ["p9"], type: "promo.flash", category: "promotions", rules: capped,
                createdAt: at(601))
            var statuses: [String] = []
            for id in ["p0", "p1", "p2", "o1", "p9"] {
                statuses += try await store.deliverySummary(id).map { $0.reason ?? $0.status.rawValue }
            }
            #expect(statuses == ["queued", "queued", "throttled", "queued", "queued"])
            // Several in one publish count one after the other.
            try await store.addDevice("u2-phone", user: "u2")
            _ = try await store.publish(
                [
                    note(
                        "b1", user: "u2", type: "promo.flash", category: "promotions", createdAt: at(700), push: pushed),
                    note(
                        "b2", user: "u2", type: "promo.flash", category: "promotions", createdAt: at(700), push: pushed),
                    note(
                        "b3", user: "u2", type: "promo.flash", category: "promotions", createdAt: at(700), push: pushed),
                ], message: nil, rules: capped, idempotency: nil)
            var batch: [String] = []
            for id in ["b1", "b2", "b3"] {
                batch += try await store.deliverySummary(id).map { $0.reason ?? $0.status.rawValue }
            }
            #expect(batch == ["queued", "queued", "throttled"])
        case .digest:
            try await store.addDevice("phone")
            try await store.addDevice("tablet", android: true)
            // t0 is 22:13:20 UTC: the digest goes out at 08:00 the next morning.
            try await store.setPreferences {
                $0.digest = DigestSettings(enabled: true, localTime: "08:00")
                $0.timeZone = "UTC"
            }
            let digestAt = Date(timeIntervalSince1970: 1_700_035_200)
            let held = PushOptions(send: true, digest: true)
            _ = try await Self.message(store, id: "m1", ids: ["n1"], push: held)
            _ = try await Self.message(store, id: "m2", ids: ["n2"], push: held, createdAt: at(1))
            _ = try await Self.message(
                store, id: "m3", ids: ["n3"], type: "account.login", category: "account", push: held, createdAt: at(2))
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .digested), Summary(token: "tablet", status: .digested),
                ])
            #expect(try await store.deliverySummary("n3").map(\.status) == [.queued, .queued], "account is never held")
            #expect(try await store.nextDigestDue() == digestAt)
            #expect(try await store.claimDueDeliveries(limit: 10, now: at(3), lease: 30).count == 2)
            #expect(
                try await store.runDueDigests(limit: 10, template: .standard, catalog: .standard, now: at(60))
                    == DigestRun(summaries: 0))
            #expect(
                try await store.runDueDigests(limit: 10, template: .standard, catalog: .standard, now: digestAt)
                    == DigestRun(summaries: 1))
            #expect(
                try await store.runDueDigests(limit: 10, template: .standard, catalog: .standard, now: digestAt)
                    == DigestRun(summaries: 0), "summed up once")
            let summaries = try await store.claimDueDeliveries(limit: 10, now: digestAt, lease: 30).filter {
                $0.notification.type == "herald.digest"
            }
            #expect(summaries.map(\.deviceToken).sorted() == ["phone", "tablet"])
            #expect(summaries.allSatisfy { $0.notification.title == "Your daily digest" })
            #expect(summaries.allSatisfy { $0.notification.body == "2 new: Title n2, Title n1" })
            #expect(summaries.allSatisfy { $0.notification.data["digestCount"] == "2" })
            #expect(try await store.deliverySummary("n1").map(\.status) == [.digested, .digested])
            #expect(try await store.message(id: "m1")?.funnel.pushes[.digested] == 2)
        case .completion:
            try await store.addDevice("phone")
            _ = try await Self.message(store, id: "m1", ids: ["n1"])
            _ = try await Self.message(store, id: "m2", ids: ["n2"], push: nil)
            _ = try await Self.message(store, id: "m3", ids: ["n3"], schedule: .at(at(600)))
            #expect(try await store.completeFinishedMessages(limit: 10, now: at(1)) == ["m2"], "no push: at once")
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(2), lease: 30)
            #expect(try await store.completeFinishedMessages(limit: 10, now: at(3)).isEmpty, "m1 is sending")
            _ = try await store.completeDeliveries(
                claimed.map {
                    DeliveryCompletion(id: $0.id, claimToken: $0.claimToken, outcome: .sent(providerMessageID: nil))
                },
                now: at(4))
            #expect(try await store.completeFinishedMessages(limit: 10, now: at(5)) == ["m1"])
            #expect(try await store.completeFinishedMessages(limit: 10, now: at(6)).isEmpty, "each once")
            #expect(try await store.message(id: "m1")?.record.completedAt == at(5))
            #expect(try await store.cancelMessage(id: "m3", now: at(7))?.scheduled == 1)
            #expect(try await store.completeFinishedMessages(limit: 10, now: at(8)) == ["m3"])
        case .digestReschedule:
            #expect(try await store.rescheduleDigest(userID: "u1", at: at(10)) == false)
            try await store.addDevice("phone")
            try await store.setPreferences { $0.digest = DigestSettings(enabled: true, localTime: "08:00") }
            _ = try await Self.message(store, id: "m1", ids: ["n1"], push: PushOptions(send: true, digest: true))
            #expect(try await store.rescheduleDigest(userID: "u1", at: at(10)) == true)
            #expect(try await store.nextDigestDue() == at(10))
        }
    }
}

@Suite("Messages, schedules and digests conformance: SQLite")
struct SQLiteMessageConformanceTests {
    @Test("SQLite store", arguments: MessageConformanceCheck.allCases)
    func conforms(_ check: MessageConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Messages, schedules and digests conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresMessageConformanceTests {
    @Test("PostgreSQL store", arguments: MessageConformanceCheck.allCases)
    func conforms(_ check: MessageConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
