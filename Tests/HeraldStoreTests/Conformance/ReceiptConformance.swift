import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

/// Expo tickets and receipts: behaviour every store must have, checked the same way against each store
/// (see ``ConformanceCheck``). Each check gets a fresh store.
enum ReceiptConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case ticketStored =
        "an ok ticket is stored in provider_ticket_id and the row is sent; its receipt is claimed once due"
    case claimLease =
        "a receipt claim holds a lease: a second poller gets nothing until it runs out, then the same ticket"
    case recordReceipts =
        "receipts: DeviceNotRegistered prunes the device, another error fails, ok ends the wait, not ready waits"
    case receiptPruneSparesReregisteredDevice =
        "a DeviceNotRegistered receipt leaves a device registered again after the send active"
    case receiptResend = "a resend receipt queues the delivery again, without its ticket, and the next claim sends it"
    case claimLimitAndOrder = "a receipt claim takes at most `limit` tickets, oldest due first"

    var testDescription: String { rawValue }

    /// Registers Expo devices `tokens` for `u1`, publishes one pushed notification and claims its
    /// deliveries at `at(10)`; answers the claims by device token.
    static func claimedExpoDeliveries(_ store: some HeraldStore, tokens: [String]) async throws -> [String:
        ClaimedDelivery]
    {
        for token in tokens {
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: token, provider: .expo, platform: .ios), at: at(-60))
        }
        try await store.publishPushed(["n1"])
        let claimed = try await store.claimDueDeliveries(limit: 10, now: at(10), lease: 30)
        return Dictionary(uniqueKeysWithValues: claimed.map { ($0.deviceToken, $0) })
    }

    /// Records an ok ticket `ticket-<token>` for each claim, receipts due at `at(100)`.
    static func ticket(_ store: some HeraldStore, _ claims: [String: ClaimedDelivery]) async throws {
        for (token, claim) in claims {
            let outcome = DeliveryOutcome.ticketed(ticketID: "ticket-\(token)", receiptDueAt: at(100))
            #expect(
                try await store.completeDelivery(
                    id: claim.id, claimToken: claim.claimToken, outcome: outcome, now: at(11)))
        }
    }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .ticketStored:
            let claims = try await Self.claimedExpoDeliveries(store, tokens: ["ExponentPushToken[a]"])
            try await Self.ticket(store, claims)
            let record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .sent && record.providerTicketID == "ticket-ExponentPushToken[a]")
            #expect(record.nextAttemptAt == nil, "a ticketed row is never sent again")
            #expect(try await store.claimDueReceipts(limit: 10, now: at(99), lease: 30).isEmpty, "not due yet")
            let due = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            #expect(due.map(\.ticketID) == ["ticket-ExponentPushToken[a]"] && due.first?.deliveryID == record.id)
            #expect(due.first?.sentAt == at(11))
        case .claimLease:
            let claims = try await Self.claimedExpoDeliveries(
                store, tokens: ["ExponentPushToken[a]", "ExponentPushToken[b]"])
            try await Self.ticket(store, claims)
            let first = try await store.claimDueReceipts(limit: 1, now: at(100), lease: 30)
            let second = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            #expect(first.count == 1 && second.count == 1 && first[0].ticketID != second[0].ticketID)
            #expect(try await store.claimDueReceipts(limit: 10, now: at(129), lease: 30).isEmpty)
            let again = try await store.claimDueReceipts(limit: 10, now: at(130), lease: 30)
            #expect(Set(again.map(\.ticketID)) == Set((first + second).map(\.ticketID)))
            #expect(Set(again.map(\.claimToken)).count == 1 && again[0].claimToken != first[0].claimToken)
            // The first claim lost its rows: what it records changes nothing.
            #expect(
                try await store.recordReceipts([ReceiptOutcome(first[0], .failed(reason: "late"))], now: at(131)) == 0)
            #expect(try await store.deliveries(notificationID: "n1").allSatisfy { $0.status == .sent })
        case .recordReceipts:
            let tokens = (1...4).map { "ExponentPushToken[d\($0)]" }
            let claims = try await Self.claimedExpoDeliveries(store, tokens: tokens)
            try await Self.ticket(store, claims)
            let due = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            let byTicket = Dictionary(uniqueKeysWithValues: due.map { ($0.ticketID, $0) })
            func claim(_ index: Int) throws -> ClaimedReceipt { try #require(byTicket["ticket-\(tokens[index])"]) }
            let outcomes = [
                ReceiptOutcome(try claim(0), .pruned(reason: "DeviceNotRegistered")),
                ReceiptOutcome(try claim(1), .failed(reason: "MessageTooBig")),
                ReceiptOutcome(try claim(2), .delivered),
                ReceiptOutcome(try claim(3), .notReady(askAgainAt: at(500))),
            ]
            #expect(try await store.recordReceipts(outcomes, now: at(101)) == 4)
            #expect(
                try await store.deliverySummary("n1") == [
                    Summary(token: tokens[0], status: .failed, reason: "DeviceNotRegistered"),
                    Summary(token: tokens[1], status: .failed, reason: "MessageTooBig"),
                    Summary(token: tokens[2], status: .sent, reason: nil),
                    Summary(token: tokens[3], status: .sent, reason: nil),
                ])
            let active = try await store.devices(userID: "u1").map { ($0.token, $0.active) }
            #expect(
                active.filter { !$0.1 }.map(\.0) == [tokens[0]], "only the DeviceNotRegistered device is deactivated")
            #expect(try await store.claimDueReceipts(limit: 10, now: at(499), lease: 30).isEmpty)
            #expect(
                try await store.claimDueReceipts(limit: 10, now: at(500), lease: 30).map(\.ticketID) == [
                    "ticket-\(tokens[3])"
                ])
        case .receiptPruneSparesReregisteredDevice:
            let tokens = ["ExponentPushToken[kept]", "ExponentPushToken[dead]"]
            let claims = try await Self.claimedExpoDeliveries(store, tokens: tokens)
            try await Self.ticket(store, claims)
            // The app starts again after the send (at 11) and registers its token anew.
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: tokens[0], provider: .expo, platform: .ios), at: at(50))
            let due = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            #expect(due.count == 2)
            let outcomes = due.map { ReceiptOutcome($0, .pruned(reason: "DeviceNotRegistered")) }
            #expect(try await store.recordReceipts(outcomes, now: at(101)) == 2)
            let active = Dictionary(
                uniqueKeysWithValues: try await store.devices(userID: "u1").map { ($0.token, $0.active) })
            #expect(
                active == [tokens[0]: true, tokens[1]: false], "only the device untouched since the send is pruned")
            #expect(try await store.deliveries(notificationID: "n1").allSatisfy { $0.status == .failed })
        case .receiptResend:
            let claims = try await Self.claimedExpoDeliveries(store, tokens: ["ExponentPushToken[r]"])
            try await Self.ticket(store, claims)
            let due = try await store.claimDueReceipts(limit: 10, now: at(100), lease: 30)
            #expect(due.map(\.attempts) == [1], "the receipt knows which attempt it answers")
            let outcome = ReceiptOutcome(try #require(due.first), .resend(at: at(200), reason: "MessageRateExceeded"))
            #expect(try await store.recordReceipts([outcome], now: at(101)) == 1)
            let record = try #require(try await store.deliveries(notificationID: "n1").first)
            #expect(record.status == .queued && record.reason == "MessageRateExceeded")
            #expect(record.nextAttemptAt == at(200) && record.providerTicketID == nil)
            #expect(try await store.claimDueReceipts(limit: 10, now: at(1000), lease: 30).isEmpty, "no receipt left")
            #expect(try await store.claimDueDeliveries(limit: 10, now: at(199), lease: 30).isEmpty)
            let again = try await store.claimDueDeliveries(limit: 10, now: at(200), lease: 30)
            #expect(again.map(\.id) == [record.id] && again.first?.attempts == 2)
        case .claimLimitAndOrder:
            let tokens = (1...3).map { "ExponentPushToken[o\($0)]" }
            let claims = try await Self.claimedExpoDeliveries(store, tokens: tokens)
            for (offset, token) in tokens.enumerated() {
                let claim = try #require(claims[token])
                let outcome = DeliveryOutcome.ticketed(ticketID: "t\(offset)", receiptDueAt: at(Double(300 - offset)))
                _ = try await store.completeDelivery(
                    id: claim.id, claimToken: claim.claimToken, outcome: outcome, now: at(11))
            }
            #expect(
                try await store.claimDueReceipts(limit: 2, now: at(400), lease: 30).map(\.ticketID) == ["t2", "t1"])
        }
    }
}

@Suite("Expo tickets and receipts conformance: SQLite")
struct SQLiteReceiptConformanceTests {
    @Test("SQLite store", arguments: ReceiptConformanceCheck.allCases)
    func conforms(_ check: ReceiptConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Expo tickets and receipts conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresReceiptConformanceTests {
    @Test("PostgreSQL store", arguments: ReceiptConformanceCheck.allCases)
    func conforms(_ check: ReceiptConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}
