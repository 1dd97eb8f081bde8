import Foundation
import HeraldModel
import HeraldServerModel
import Testing

@testable import HeraldStore

/// Delivery outbox at publish: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum OutboxConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case noPushNoRows = "a publish without push.send, or of a hidden admin row, writes no delivery rows"
    case accountCannotOptOut = "the account category ignores the category and type switches"
    case deferredByQuietHours = "inside quiet hours every device gets a deferred row due when they end"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
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
