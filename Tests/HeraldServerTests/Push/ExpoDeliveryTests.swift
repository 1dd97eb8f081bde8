import Foundation
import HeraldModel
import HeraldSandbox
import HeraldStore
import Testing

/// Expo delivery end to end: the worker sends batches to the Expo look-alike over TLS, stores the
/// tickets, and the receipt poller fetches their receipts.
@Suite("Expo delivery against the Expo sandbox", .serialized)
struct ExpoDeliveryTests {
    @Test("250 Expo devices go out in 3 requests of at most 100, each ticket stored on its delivery")
    func batches() async throws {
        try await ExpoFixture.run(receiptDelay: 3_600) { fixture in
            let tokens = ExpoFixture.tokens(250)
            try await fixture.register(tokens, for: "alice")
            let id = try await fixture.publish(to: "alice")
            let rows = try await fixture.settledDeliveries(of: id)
            #expect(rows.count == 250 && rows.allSatisfy { $0.status == .sent && $0.attempts == 1 })
            #expect(fixture.sandbox.sendSizes.sorted() == [50, 100, 100], "\(fixture.sandbox.sendSizes)")
            let tickets = Dictionary(uniqueKeysWithValues: fixture.sandbox.accepted.map { ($0.to, $0.ticketID) })
            #expect(
                rows.allSatisfy { row in
                    row.providerTicketID != nil && row.providerTicketID == tickets[row.deviceToken ?? ""]
                })
            let message = try #require(fixture.sandbox.accepted(for: tokens[0]).first)
            #expect(message.string("title") == "Your order shipped" && message.string("priority") == "high")
            #expect(message.data["notificationId"] == id && message.number("badge") == 1)
            let metrics = try await fixture.server.get("/metrics").text
            #expect(metrics.contains(#"herald_push_deliveries_total{provider="expo",outcome="sent"} 250"#))
        }
    }

    @Test("DeviceNotRegistered in a ticket: the delivery fails with it and the device is deactivated")
    func ticketPrunes() async throws {
        try await ExpoFixture.run { fixture in
            let tokens = ExpoFixture.tokens(2)
            fixture.sandbox.setFault(.deviceNotRegisteredTicket, for: tokens[0])
            try await fixture.register(tokens, for: "bob")
            let id = try await fixture.publish(to: "bob")
            let rows = try await fixture.settledDeliveries(of: id)
            let gone = try #require(rows.first { $0.deviceToken == tokens[0] })
            #expect(gone.status == .failed && gone.reason == "DeviceNotRegistered" && gone.providerTicketID == nil)
            #expect(rows.first { $0.deviceToken == tokens[1] }?.status == .sent)
            #expect(try await fixture.activeFlags(tokens, of: "bob") == [false, true])
        }
    }

    @Test("DeviceNotRegistered in a receipt: the poller fails the sent delivery and deactivates the device")
    func receiptPrunes() async throws {
        try await ExpoFixture.run(receiptDelay: 0.05) { fixture in
            let tokens = ExpoFixture.tokens(2)
            fixture.sandbox.setFault(.deviceNotRegisteredReceipt, for: tokens[0])
            try await fixture.register(tokens, for: "carol")
            let id = try await fixture.publish(to: "carol")
            let rows = try await fixture.deliveries(of: id) { rows in
                rows.contains { $0.status == .failed }
            }
            let gone = try #require(rows.first { $0.deviceToken == tokens[0] })
            #expect(gone.status == .failed && gone.reason == "DeviceNotRegistered", "\(gone)")
            #expect(gone.providerTicketID == fixture.sandbox.accepted(for: tokens[0]).first?.ticketID)
            #expect(rows.first { $0.deviceToken == tokens[1] }?.status == .sent)
            #expect(try await fixture.activeFlags(tokens, of: "carol") == [false, true])
            let metrics = try await fixture.server.get("/metrics").text
            #expect(metrics.contains(#"herald_push_deliveries_total{provider="expo",outcome="receipt_pruned"} 1"#))
            // Both receipts were fetched: nothing is left waiting for one.
            let pending = try await fixture.server.app.store.claimDueReceipts(
                limit: 10, now: Date().addingTimeInterval(3_600), lease: 1)
            #expect(pending.isEmpty, "\(pending)")
        }
    }

    @Test("MessageRateExceeded in a receipt: Expo dropped the push, so it is sent again and its new receipt is ok")
    func receiptRateExceededResends() async throws {
        try await ExpoFixture.run(receiptDelay: 0.05) { fixture in
            let tokens = ExpoFixture.tokens(1)
            fixture.sandbox.setFault(.messageRateExceededReceipt, for: tokens[0], times: 1)
            try await fixture.register(tokens, for: "dora")
            let id = try await fixture.publish(to: "dora")
            let rows = try await fixture.deliveries(of: id) { rows in
                rows.first.map { $0.status == .sent && $0.attempts == 2 } ?? false
            }
            let accepted = fixture.sandbox.accepted(for: tokens[0])
            #expect(accepted.count == 2, "sent twice: Expo dropped the first")
            #expect(rows.first?.providerTicketID == accepted.last?.ticketID, "the delivery holds the new ticket")
            let metrics = try await fixture.server.get("/metrics").text
            #expect(metrics.contains(#"herald_push_deliveries_total{provider="expo",outcome="receipt_retry"} 1"#))
        }
    }

    @Test("MessageRateExceeded in a ticket backs off, then the message is sent")
    func rateExceededBacksOff() async throws {
        try await ExpoFixture.run { fixture in
            let tokens = ExpoFixture.tokens(1)
            fixture.sandbox.setFault(.messageRateExceeded, for: tokens[0], times: 1)
            try await fixture.register(tokens, for: "dan")
            let id = try await fixture.publish(to: "dan")
            let rows = try await fixture.settledDeliveries(of: id)
            #expect(rows.map(\.status) == [.sent] && rows.map(\.attempts) == [2], "\(rows)")
            #expect(fixture.sandbox.accepted(for: tokens[0]).count == 1)
        }
    }

    @Test("a 429 with Retry-After and a 503 fail the whole request; every message is retried, then sent")
    func requestFailuresRetried() async throws {
        try await ExpoFixture.run { fixture in
            let tokens = ExpoFixture.tokens(3)
            fixture.sandbox.setFault(.tooManyRequests(retryAfter: 1), for: tokens[0], times: 1)
            fixture.sandbox.setFault(.unavailable, for: tokens[1], times: 1)
            try await fixture.register(tokens, for: "erin")
            let id = try await fixture.publish(to: "erin")
            let rows = try await fixture.settledDeliveries(of: id)
            // The rows may come due again a moment apart, so the retries may go in one request or more.
            #expect(rows.allSatisfy { $0.status == .sent && (2...3).contains($0.attempts) }, "\(rows)")
            #expect(fixture.sandbox.statusCounts[429] == 1 && fixture.sandbox.statusCounts[503] == 1)
            #expect(fixture.sandbox.accepted.map(\.to).sorted() == tokens.sorted(), "each sent exactly once")
        }
    }

    @Test("a connection dropped mid-batch loses nothing: every message is sent again, and accepted once")
    func droppedConnection() async throws {
        try await ExpoFixture.run { fixture in
            let tokens = ExpoFixture.tokens(5)
            fixture.sandbox.setFault(.dropConnection, for: tokens[2], times: 1)
            try await fixture.register(tokens, for: "gina")
            let id = try await fixture.publish(to: "gina")
            let rows = try await fixture.settledDeliveries(of: id)
            #expect(rows.allSatisfy { $0.status == .sent && $0.attempts == 2 }, "\(rows)")
            #expect(fixture.sandbox.accepted.map(\.to).sorted() == tokens.sorted(), "each accepted exactly once")
        }
    }

    @Test("the access token is sent; a wrong one is refused with 401 and the deliveries fail, never retried")
    func accessToken() async throws {
        try await ExpoFixture.run(accessToken: "not-the-sandbox-token") { fixture in
            let tokens = ExpoFixture.tokens(2)
            try await fixture.register(tokens, for: "frank")
            let id = try await fixture.publish(to: "frank")
            let rows = try await fixture.settledDeliveries(of: id)
            #expect(
                rows.allSatisfy { $0.status == .failed && $0.reason == "UNAUTHORIZED" && $0.attempts == 1 }, "\(rows)")
            #expect(fixture.sandbox.statusCounts[401] == 1 && fixture.sandbox.accepted.isEmpty)
            #expect(
                try await fixture.activeFlags(tokens, of: "frank") == [true, true], "a refused token prunes nothing")
        }
    }
}
