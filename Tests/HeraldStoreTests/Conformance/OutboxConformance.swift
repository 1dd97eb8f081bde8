import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Delivery outbox at publish: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum OutboxConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case queuedPerDevice = "a push goes out as one queued row per active device, due at once, with the TTL expiry"
    case skippedGlobalOff = "with push switched off every device is skipped as global_off"
    case skippedOSDenied = "with the OS permission denied every device is skipped as os_denied"
    case skippedCategoryOff = "with the category switched off every device is skipped as category_off"
    case skippedTypeDisabled = "with the type disabled every device is skipped as type_disabled"
    case noDevice = "a recipient without an active device gets one skipped no_device row"
    case noPushNoRows = "a publish without push.send, or of a hidden admin row, writes no delivery rows"
    case accountCannotOptOut = "the account category ignores the category and type switches"
    case deferredByQuietHours = "inside quiet hours every device gets a deferred row due when they end"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .queuedPerDevice:
            try await store.addDevice("phone")
            try await store.addDevice("tablet", android: true)
            try await store.addDevice("old")
            try await store.write { db in try db.execute("UPDATE devices SET active = 0 WHERE token = 'old'") }
            try await store.addDevice("other", user: "u2")
            try await store.publishPushed(["n1"], push: PushOptions(send: true, ttlSeconds: 600))

            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .queued), Summary(token: "tablet", status: .queued),
                ], "inactive devices and other users' devices get no row")
            #expect(rows.allSatisfy { $0.attempts == 0 && $0.nextAttemptAt == t0 && $0.expiresAt == at(600) })
            #expect(rows.allSatisfy { $0.userID == "u1" && $0.createdAt == t0 && $0.updatedAt == t0 })
            #expect(Set(rows.map(\.id)).count == 2)
            let tablet = try #require(rows.first { $0.deviceToken == "tablet" })
            #expect(tablet.provider == .fcm && tablet.platform == .android && tablet.environment == .production)
        case .skippedGlobalOff:
            try await skipped("global_off") { $0.globalEnabled = false }
        case .skippedOSDenied:
            try await skipped("os_denied") { $0.osPermissionGranted = false }
        case .skippedCategoryOff:
            try await skipped("category_off", type: "promo.flash", category: "promotions") {
                $0.categories["promotions"] = false
            }
        case .skippedTypeDisabled:
            try await skipped("type_disabled") { $0.disabledTypes = ["order"] }
        case .noDevice:
            try await store.addDevice("old")
            try await store.write { db in try db.execute("UPDATE devices SET active = 0") }
            try await store.setPreferences { $0.globalEnabled = false }
            try await store.publishPushed(["n1"])
            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [Summary(token: nil, status: .skipped, reason: "no_device")])
            #expect(rows.first?.provider == nil && rows.first?.platform == nil && rows.first?.environment == nil)
        case .noPushNoRows:
            try await store.addDevice("phone")
            try await store.publishPushed(["n1"], push: PushOptions(send: false))
            _ = try await store.publish([note("n2")], catalog: .standard, idempotency: nil)
            try await store.publishPushed(["n3"], type: "admin.audit", category: nil)
            for id in ["n1", "n2", "n3"] {
                #expect(try await store.deliveries(notificationID: id).isEmpty)
            }
        case .accountCannotOptOut:
            try await store.addDevice("phone")
            try await store.setPreferences { $0.disabledTypes = ["account"] }
            try await store.publishPushed(["n1"], type: "account.security", category: "account")
            #expect(try await store.deliverySummary("n1") == [Summary(token: "phone", status: .queued)])
        case .deferredByQuietHours:
            // t0 is 2023-11-14 22:13:20 UTC.
            try await store.addDevice("phone")
            try await store.setPreferences { $0.quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "UTC") }
            try await store.publishPushed(["n1"])
            let rows = try await store.deliveries(notificationID: "n1")
            #expect(try await store.deliverySummary("n1") == [Summary(token: "phone", status: .deferred)])
            #expect(rows.first?.nextAttemptAt == Date(timeIntervalSince1970: 1_700_031_600), "07:00 the next morning")
        }

        /// A push-policy rule, set by `preferences`, skips both devices with `reason`.
        func skipped(
            _ reason: String, type: String = "order.shipped", category: String = "orders",
            _ preferences: @Sendable (inout Preferences) -> Void
        ) async throws {
            try await store.addDevice("phone")
            try await store.addDevice("tablet")
            try await store.setPreferences { preferences(&$0) }
            try await store.publishPushed(["n1"], type: type, category: category)
            let rows = try await store.deliveries(notificationID: "n1")
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: "phone", status: .skipped, reason: reason),
                    Summary(token: "tablet", status: .skipped, reason: reason),
                ])
            #expect(rows.allSatisfy { $0.nextAttemptAt == nil })
        }
    }
}

@Suite("Delivery outbox at publish conformance: SQLite")
struct SQLiteOutboxConformanceTests {
    @Test("SQLite store", arguments: OutboxConformanceCheck.allCases)
    func conforms(_ check: OutboxConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Delivery outbox at publish conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresOutboxConformanceTests {
    @Test("PostgreSQL store", arguments: OutboxConformanceCheck.allCases)
    func conforms(_ check: OutboxConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
