import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Delivery claims and outcomes: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum DeliveryClaimConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case claimOrderAndLimit = "claims take the oldest due rows first, at most `limit`, and carry what a worker sends"
    case deferredAndSkipped = "skipped rows are never claimed; deferred rows are claimed once quiet hours end"
    case leaseExpiry =
        "kill -9: a claim whose lease runs out is due again, with the same delivery id and a new claim token"
    case retry = "a retry is due again at its time; one at or past the TTL expiry expires instead"
    case expiredAtClaim = "a due row past its TTL is marked expired at claim and never handed to a worker"
    case finalOutcomes = "failed and expired outcomes are final"
    case staleToken = "a stale claim token changes nothing"
    case prune = "a pruned token fails its delivery and deactivates the device, so the next publish finds none"
    case pruneSparesAReRegisteredDevice =
        "a prune leaves a device registered again (or moved to another user) after the claim active"
    case deviceGoneBeforeClaim =
        "a row whose device was pruned, unregistered or moved to another user is skipped at claim, not sent"
    case batchedOutcomes =
        "completeDeliveries records many outcomes in one write (sends, tickets, failures and expiries one statement per kind), each under its own claim token"
    case concurrentClaimers = "concurrent claimers never get the same row, and together get every row"
    case ttlZero =
        "a TTL of 0 gets one attempt when first due, never a retry; held by quiet hours it expires instead"
    case snooze =
        "a snooze is stored with the preferences, defers pushes as snoozed, and releasing it moves them sooner"
    case opens =
        "an open is kept the first time, shows on the notification's deliveries, and is the recipient's alone"
    case appIDs =
        "a device keeps the app it registered with (default when none), moves with a new registration, and its deliveries and receipts carry it"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .claimOrderAndLimit:
            try await store.addDevice("phone")
            try await store.publishPushed(["n3"], createdAt: at(3))
            try await store.publishPushed(["n1"], createdAt: at(1))
            try await store.publishPushed(
                ["n2"], push: PushOptions(send: true, priority: .normal, collapseId: "c"), createdAt: at(2))
            try await store.publishPushed(["later"], createdAt: at(100))

            let first = try await store.claimDueDeliveries(limit: 2, now: at(10), lease: 30)
            #expect(first.map(\.notification.id) == ["n1", "n2"])
            #expect(first.allSatisfy { $0.attempts == 1 && $0.leaseExpiresAt == at(40) && $0.deviceToken == "phone" })
            #expect(first[1].push == PushOptions(send: true, priority: .normal, collapseId: "c"))
            #expect(first[0].notification.title == "Title n1" && first[0].notification.data == ["orderId": "o-1"])
            #expect(first[0].badge == 4, "the recipient's unseen count")
            #expect(first[0].provider == .apns && first[0].platform == .ios)
            #expect(try await store.deliveries(notificationID: "n1").first?.status == .sending)

            let second = try await store.claimDueDeliveries(limit: 5, now: at(10), lease: 30)
            #expect(second.map(\.notification.id) == ["n3"], "claimed rows and rows not yet due stay out")
            #expect(try await store.claimDueDeliveries(limit: 5, now: at(10), lease: 30).isEmpty)
        case .deferredAndSkipped:
            try await store.addDevice("phone")
            try await store.addDevice("other", user: "u2")
            try await store.setPreferences { $0.quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "UTC") }
            try await store.setPreferences("u2") { $0.globalEnabled = false }
            try await store.publishPushed(["quiet"])
            try await store.publishPushed(["off"], user: "u2")
            let end = Date(timeIntervalSince1970: 1_700_031_600)
            #expect(try await store.claimDueDeliveries(limit: 10, now: end.addingTimeInterval(-1), lease: 30).isEmpty)
            let claimed = try await store.claimDueDeliveries(limit: 10, now: end, lease: 30)
            #expect(claimed.map(\.notification.id) == ["quiet"])
        case .leaseExpiry:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"])
            let first = try #require(try await store.claimDueDeliveries(limit: 1, now: at(1), lease: 30).first)
            #expect(try await store.claimDueDeliveries(limit: 1, now: at(30), lease: 30).isEmpty)
            let again = try #require(try await store.claimDueDeliveries(limit: 1, now: at(31), lease: 30).first)
            #expect(again.id == first.id, "the apns-id stays")
            #expect(again.claimToken != first.claimToken)
            #expect(again.attempts == 2)

            // The first worker's late answer changes nothing; the second's is recorded.
            #expect(
                try await !store.completeDelivery(
                    id: first.id, claimToken: first.claimToken, outcome: .sent(providerMessageID: "late"), now: at(32)))
            #expect(try await store.deliveries(notificationID: "n1").first?.status == .sending)
            #expect(
                try await store.completeDelivery(
                    id: again.id, claimToken: again.claimToken, outcome: .sent(providerMessageID: "m-1"), now: at(33)))
            let record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .sent && record.providerMessageID == "m-1" && record.nextAttemptAt == nil)
            #expect(record.updatedAt == at(33) && record.attempts == 2)
            #expect(
                try await !store.completeDelivery(
                    id: again.id, claimToken: again.claimToken, outcome: .failed(reason: "twice"), now: at(34)),
                "a completed claim cannot complete again")
            #expect(try await store.claimDueDeliveries(limit: 1, now: at(1_000), lease: 30).isEmpty)
        case .retry:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"], push: PushOptions(send: true, ttlSeconds: 60))
            let claim = try #require(try await store.claimDueDeliveries(limit: 1, now: at(1), lease: 30).first)
            #expect(claim.expiresAt == at(60))
            #expect(
                try await store.completeDelivery(
                    id: claim.id, claimToken: claim.claimToken, outcome: .retry(at: at(20), reason: "TooManyRequests"),
                    now: at(2)))
            var record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .queued && record.reason == "TooManyRequests" && record.nextAttemptAt == at(20))
            #expect(try await store.claimDueDeliveries(limit: 1, now: at(19), lease: 30).isEmpty)

            let retry = try #require(try await store.claimDueDeliveries(limit: 1, now: at(20), lease: 30).first)
            #expect(retry.id == claim.id && retry.attempts == 2)
            #expect(
                try await store.completeDelivery(
                    id: retry.id, claimToken: retry.claimToken,
                    outcome: .retry(at: at(60), reason: "ServiceUnavailable"),
                    now: at(21)))
            record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .expired && record.nextAttemptAt == nil)
        case .expiredAtClaim:
            try await store.addDevice("phone")
            try await store.publishPushed(["stale"], push: PushOptions(send: true, ttlSeconds: 5))
            try await store.publishPushed(["fresh"])
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(5), lease: 30)
            #expect(claimed.map(\.notification.id) == ["fresh"])
            let stale = try #require(try await store.deliveries(notificationID: "stale").first)
            #expect(stale.status == .expired && stale.reason == "ttl_expired" && stale.attempts == 0)
        case .finalOutcomes:
            try await store.addDevice("phone")
            try await store.publishPushed(["a", "b"])
            let claims = try await store.claimDueDeliveries(limit: 2, now: at(1), lease: 30)
                .sorted { $0.notification.id < $1.notification.id }
            #expect(
                try await store.completeDelivery(
                    id: claims[0].id, claimToken: claims[0].claimToken, outcome: .failed(reason: "PayloadTooLarge"),
                    now: at(2)))
            #expect(
                try await store.completeDelivery(
                    id: claims[1].id, claimToken: claims[1].claimToken, outcome: .expired, now: at(2)))
            #expect(
                try await store.deliverySummary("a") == [
                    Summary(token: "phone", status: .failed, reason: "PayloadTooLarge")
                ])
            #expect(
                try await store.deliverySummary("b") == [
                    Summary(token: "phone", status: .expired, reason: "ttl_expired")
                ])
            #expect(try await store.claimDueDeliveries(limit: 2, now: at(1_000), lease: 30).isEmpty)
        case .staleToken:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"])
            let claim = try #require(try await store.claimDueDeliveries(limit: 1, now: at(1), lease: 30).first)
            let before = try await store.deliveries(notificationID: "n1")
            for outcome: DeliveryOutcome in [.sent(providerMessageID: nil), .pruned(reason: "Unregistered"), .expired] {
                #expect(
                    try await !store.completeDelivery(
                        id: claim.id, claimToken: "not-mine", outcome: outcome, now: at(2)))
            }
            #expect(try await store.deliveries(notificationID: "n1") == before)
            #expect(try await store.devices(userID: "u1").first?.active == true)
        case .prune:
            try await store.addDevice("phone")
            try await store.addDevice("tablet")
            try await store.publishPushed(["n1"])
            let claims = try await store.claimDueDeliveries(limit: 2, now: at(1), lease: 30)
            let phone = try #require(claims.first { $0.deviceToken == "phone" })
            #expect(
                try await store.completeDelivery(
                    id: phone.id, claimToken: phone.claimToken, outcome: .pruned(reason: "Unregistered"), now: at(2)))
            #expect(
                try await store.deliverySummary("n1")[0]
                    == Summary(token: "phone", status: .failed, reason: "Unregistered"))
            let devices = try await store.devices(userID: "u1")
            #expect(devices.first { $0.token == "phone" }?.active == false)
            #expect(devices.first { $0.token == "tablet" }?.active == true)
            try await store.publishPushed(["n2"], createdAt: at(3))
            #expect(try await store.deliverySummary("n2") == [Summary(token: "tablet", status: .queued)])
        case .pruneSparesAReRegisteredDevice:
            try await store.addDevice("phone")
            try await store.addDevice("moved")
            try await store.publishPushed(["n1"])
            let claims = try await store.claimDueDeliveries(limit: 2, now: at(1), lease: 30)
            // While the sends are out, the app registers "phone" again and "moved" moves to u2.
            try await store.addDevice("phone", at: at(2))
            try await store.addDevice("moved", user: "u2", at: at(2))
            for claim in claims {
                #expect(
                    try await store.completeDelivery(
                        id: claim.id, claimToken: claim.claimToken, outcome: .pruned(reason: "Unregistered"),
                        now: at(3)))
            }
            #expect(try await store.devices(userID: "u1").first { $0.token == "phone" }?.active == true)
            #expect(try await store.devices(userID: "u2").first { $0.token == "moved" }?.active == true)
        case .deviceGoneBeforeClaim:
            for token in ["pruned", "signed-out", "moved", "kept"] {
                try await store.addDevice(token)
            }
            try await store.publishPushed(["first"])
            try await store.publishPushed(["second"], createdAt: at(1))
            let claims = try await store.claimDueDeliveries(limit: 4, now: at(1), lease: 30)
            let pruned = try #require(claims.first { $0.deviceToken == "pruned" })
            #expect(
                try await store.completeDelivery(
                    id: pruned.id, claimToken: pruned.claimToken, outcome: .pruned(reason: "Unregistered"), now: at(2)))
            #expect(try await store.deleteDevice(userID: "u1", token: "signed-out"))
            try await store.addDevice("moved", user: "u2", at: at(2))

            let second = try await store.claimDueDeliveries(limit: 10, now: at(3), lease: 30)
            #expect(second.map(\.deviceToken) == ["kept"])
            #expect(
                try await store.deliverySummary("second") == [
                    Summary(token: "kept", status: .sending),
                    Summary(token: "moved", status: .skipped, reason: "device_inactive"),
                    Summary(token: "pruned", status: .skipped, reason: "device_inactive"),
                    Summary(token: "signed-out", status: .skipped, reason: "device_inactive"),
                ])
        case .batchedOutcomes:
            for token in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] { try await store.addDevice(token) }
            try await store.publishPushed(["n1"])
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(1), lease: 30)
            let byToken = Dictionary(uniqueKeysWithValues: claimed.map { ($0.deviceToken, $0) })
            let (a, b, c, d) = (byToken["a"]!, byToken["b"]!, byToken["c"]!, byToken["d"]!)
            let (e, f, g, h) = (byToken["e"]!, byToken["f"]!, byToken["g"]!, byToken["h"]!)
            let (i, j) = (byToken["i"]!, byToken["j"]!)
            #expect(
                try await store.completeDelivery(
                    id: f.id, claimToken: f.claimToken, outcome: .failed(reason: "BadTopic"), now: at(2)))
            let held = try await store.completeDeliveries(
                [
                    DeliveryCompletion(id: a.id, claimToken: a.claimToken, outcome: .sent(providerMessageID: "m-a")),
                    DeliveryCompletion(id: b.id, claimToken: "another-claim", outcome: .sent(providerMessageID: nil)),
                    DeliveryCompletion(id: c.id, claimToken: c.claimToken, outcome: .pruned(reason: "Unregistered")),
                    DeliveryCompletion(id: d.id, claimToken: d.claimToken, outcome: .retry(at: at(20), reason: "503")),
                    DeliveryCompletion(id: e.id, claimToken: e.claimToken, outcome: .sent(providerMessageID: nil)),
                    DeliveryCompletion(id: f.id, claimToken: f.claimToken, outcome: .sent(providerMessageID: "m-f")),
                    DeliveryCompletion(
                        id: g.id, claimToken: g.claimToken, outcome: .ticketed(ticketID: "t-g", receiptDueAt: at(50)),
                        providerStatus: 200),
                    DeliveryCompletion(
                        id: h.id, claimToken: h.claimToken, outcome: .failed(reason: "DeviceTokenNotForTopic"),
                        providerStatus: 400),
                    DeliveryCompletion(id: i.id, claimToken: i.claimToken, outcome: .expired),
                    DeliveryCompletion(id: j.id, claimToken: "another-claim", outcome: .failed(reason: "BadTopic")),
                ], now: at(3))
            #expect(
                held == [true, false, true, true, true, false, true, true, true, false],
                "a stale claim token and a row already final change nothing, the others still land")

            let records = Dictionary(
                uniqueKeysWithValues: try await store.deliveries(notificationID: "n1").map { ($0.deviceToken, $0) })
            #expect(records["a"]?.status == .sent && records["a"]?.providerMessageID == "m-a")
            #expect(records["a"]?.nextAttemptAt == nil && records["a"]?.updatedAt == at(3))
            #expect(records["b"]?.status == .sending, "still claimed: its lease brings it back")
            #expect(records["c"]?.status == .failed && records["c"]?.reason == "Unregistered")
            #expect(records["d"]?.status == .queued && records["d"]?.nextAttemptAt == at(20))
            #expect(records["e"]?.status == .sent && records["e"]?.providerMessageID == nil)
            #expect(records["f"]?.status == .failed && records["f"]?.providerMessageID == nil)
            #expect(records["g"]?.status == .sent && records["g"]?.providerTicketID == "t-g")
            #expect(records["g"]?.providerMessageID == nil && records["g"]?.providerStatus == 200)
            #expect(records["h"]?.status == .failed && records["h"]?.reason == "DeviceTokenNotForTopic")
            #expect(records["h"]?.providerStatus == 400 && records["h"]?.nextAttemptAt == nil)
            #expect(records["i"]?.status == .expired && records["i"]?.reason == DeliveryExpiryReason.ttl)
            #expect(records["j"]?.status == .sending && records["j"]?.reason == nil, "its claim is another's")
            #expect(try await store.claimDueReceipts(limit: 10, now: at(49), lease: 30).isEmpty)
            #expect(
                try await store.claimDueReceipts(limit: 10, now: at(50), lease: 30).map(\.ticketID) == ["t-g"],
                "the ticket's receipt is due when the outcome said")
            let active = try await store.devices(userID: "u1").filter(\.active).map(\.token)
            #expect(
                active.sorted() == ["a", "b", "d", "e", "f", "g", "h", "i", "j"],
                "the pruned token is deactivated; a failure deactivates nothing")
            #expect(try await store.claimDueDeliveries(limit: 10, now: at(10), lease: 30).isEmpty)
            #expect(try await store.completeDeliveries([], now: at(3)).isEmpty)

            // A delivery listed twice (its lease ran out and it was claimed again): its outcomes
            // land one by one in list order, whatever their kinds.
            let again = Dictionary(
                uniqueKeysWithValues: try await store.claimDueDeliveries(limit: 10, now: at(40), lease: 30).map {
                    ($0.deviceToken, $0)
                })
            let (b2, j2) = (try #require(again["b"]), try #require(again["j"]))
            #expect(b2.claimToken != b.claimToken)
            let repeats = try await store.completeDeliveries(
                [
                    DeliveryCompletion(id: b.id, claimToken: b.claimToken, outcome: .failed(reason: "first")),
                    DeliveryCompletion(id: j2.id, claimToken: j2.claimToken, outcome: .sent(providerMessageID: "m-j")),
                    DeliveryCompletion(id: b2.id, claimToken: b2.claimToken, outcome: .failed(reason: "second")),
                    DeliveryCompletion(id: j2.id, claimToken: j2.claimToken, outcome: .failed(reason: "late")),
                ], now: at(41))
            #expect(
                repeats == [false, true, true, false], "the stale claim and the outcome after a final one do not land")
            let after = Dictionary(
                uniqueKeysWithValues: try await store.deliveries(notificationID: "n1").map { ($0.deviceToken, $0) })
            #expect(after["b"]?.status == .failed && after["b"]?.reason == "second")
            #expect(after["j"]?.status == .sent && after["j"]?.providerMessageID == "m-j")
        case .ttlZero:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"], push: PushOptions(send: true, ttlSeconds: 0))
            let claim = try #require(try await store.claimDueDeliveries(limit: 1, now: at(1), lease: 30).first)
            #expect(claim.expiresAt == t0 && claim.attempts == 1, "claimed though its expiry is its publish time")
            #expect(
                try await store.completeDelivery(
                    id: claim.id, claimToken: claim.claimToken,
                    outcome: .retry(at: at(5), reason: "ServiceUnavailable"),
                    now: at(2)))
            #expect(try await store.deliveries(notificationID: "n1").first?.status == .expired, "never a retry")
            try await store.setPreferences { $0.quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "UTC") }
            try await store.publishPushed(["quiet"], push: PushOptions(send: true, ttlSeconds: 0))
            let end = Date(timeIntervalSince1970: 1_700_031_600)
            #expect(try await store.claimDueDeliveries(limit: 10, now: end, lease: 30).isEmpty)
            #expect(try await store.deliveries(notificationID: "quiet").first?.status == .expired)
        case .snooze:
            try await store.addDevice("phone")
            try await store.setPreferences { $0.snoozedUntil = at(100) }
            #expect(try await store.preferences(userID: "u1")?.snoozedUntil == at(100))
            try await store.publishPushed(["n1"])
            var record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .deferred && record.reason == "snoozed" && record.nextAttemptAt == at(100))
            #expect(try await store.releaseSnoozedDeliveries(userID: "u2", due: at(10), now: at(10)) == 0)
            #expect(try await store.releaseSnoozedDeliveries(userID: "u1", due: at(200), now: at(10)) == 0)
            #expect(try await store.releaseSnoozedDeliveries(userID: "u1", due: at(50), now: at(10)) == 1)
            record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.nextAttemptAt == at(50) && record.reason == "snoozed")
            #expect(try await store.claimDueDeliveries(limit: 5, now: at(49), lease: 30).isEmpty)
            #expect(
                try await store.claimDueDeliveries(limit: 5, now: at(50), lease: 30).map(\.deviceToken) == ["phone"])
        case .opens:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"])
            #expect(try await store.deliveries(notificationID: "n1").first?.openedAt == nil)
            #expect(try await store.markOpened(userID: "u1", id: "n1", at: at(5)) == at(5))
            #expect(try await store.markOpened(userID: "u1", id: "n1", at: at(9)) == at(5), "the first open is kept")
            #expect(try await store.deliveries(notificationID: "n1").first?.openedAt == at(5))
            #expect(try await store.markOpened(userID: "u2", id: "n1", at: at(9)) == nil)
            #expect(try await store.markOpened(userID: "u1", id: "missing", at: at(9)) == nil)
        case .appIDs:
            try await store.addDevice("plain")
            try await store.addDevice("shop-phone", app: "shop")
            try await store.addDevice("moving", app: "shop")
            try await store.addDevice("moving", app: "kiosk", at: at(-30))
            let devices = try await store.devices(userID: "u1")
            #expect(
                Dictionary(uniqueKeysWithValues: devices.map { ($0.token, $0.appId) })
                    == ["plain": "default", "shop-phone": "shop", "moving": "kiosk"])
            try await store.publishPushed(["n1"])
            let claimed = try await store.claimDueDeliveries(limit: 10, now: at(10), lease: 30)
            #expect(
                Dictionary(uniqueKeysWithValues: claimed.map { ($0.deviceToken, $0.appID) })
                    == ["plain": "default", "shop-phone": "shop", "moving": "kiosk"])
            let shop = try #require(claimed.first { $0.deviceToken == "shop-phone" })
            #expect(
                try await store.completeDelivery(
                    id: shop.id, claimToken: shop.claimToken,
                    outcome: .ticketed(ticketID: "t-shop", receiptDueAt: at(100)), now: at(11)))
            let receipts = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            #expect(receipts.map(\.appID) == ["shop"])
        case .concurrentClaimers:
            try await store.addDevice("phone")
            try await store.addDevice("tablet")
            try await store.publishPushed((0..<100).map { "n\($0)" })
            let ids = try await claimAll(by: Array(repeating: store, count: 4))
            #expect(ids.count == 200)
            #expect(Set(ids).count == 200)
        }

    }
}

@Suite("Delivery claims and outcomes conformance: SQLite")
struct SQLiteDeliveryClaimConformanceTests {
    @Test("SQLite store", arguments: DeliveryClaimConformanceCheck.allCases)
    func conforms(_ check: DeliveryClaimConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Delivery claims and outcomes conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresDeliveryClaimConformanceTests {
    @Test("PostgreSQL store", arguments: DeliveryClaimConformanceCheck.allCases)
    func conforms(_ check: DeliveryClaimConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
