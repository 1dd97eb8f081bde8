import Foundation
import HeraldModel
import HeraldSandbox
import HeraldTestSupport
import Testing

/// The outcome classes of the delivery worker beyond a plain send, against the APNs look-alike
/// over TLS: `Retry-After`, the attempt limit, pruning, TTL expiry, quiet hours, the shared
/// provider token and a connection lost mid-batch.
@Suite("Delivery outcomes against the APNs sandbox", .serialized)
struct DeliveryOutcomeTests {
    @Test("a 429 with Retry-After: 1 is retried no earlier than a second later, then sent")
    func retryAfterHonoured() async throws {
        try await PushFixture.run(retryCap: 5) { fixture in
            let token = PushFixture.deviceToken()
            fixture.sandbox.setFault(.tooManyRequests(retryAfter: 1), for: token, times: 1)
            try await fixture.register(token, for: "erin")
            let published = Date()
            let id = try await fixture.publish(to: "erin")
            let waiting = try await fixture.deliveries(of: id) { items in
                items.first.map { $0.attempts >= 1 && $0.status != "sending" } ?? false
            }
            let first = try #require(waiting.first)
            // On a machine slow enough to miss the whole second, only the sent time below is checked.
            if first.status == "queued" {
                let next = try #require(first.nextAttemptAt, "\(first)")
                // The route has whole-second precision at best: allow for its rounding down.
                #expect(next.timeIntervalSince(published) >= 0, "\(first)")
                #expect(next.timeIntervalSince(first.updatedAt) >= 0.999, "\(first)")
                #expect(first.reason?.contains("TooManyRequests") == true, "\(first)")
                #expect(first.providerStatus == 429, "the provider's status of the attempt: \(first)")
            } else if first.status != "sent" {
                Issue.record("the row is not waiting for its retry after the 429: \(first)")
            }
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent"] && items.map(\.attempts) == [2], "\(items)")
            #expect(items.map(\.providerStatus) == [200], "the last attempt's status: \(items)")
            let accepted = try #require(fixture.sandbox.accepted(for: token).first)
            #expect(accepted.receivedAt.timeIntervalSince(published) >= 1, "sent before Retry-After ran out")
        }
    }

    @Test("a 503 on every attempt fails after maxAttempts with the last reason")
    func failedAfterAttemptLimit() async throws {
        try await PushFixture.run(maxAttempts: 3) { fixture in
            let token = PushFixture.deviceToken()
            fixture.sandbox.setFault(.serviceUnavailable, for: token)
            try await fixture.register(token, for: "frank")
            let id = try await fixture.publish(to: "frank")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["failed"] && items.map(\.attempts) == [3], "\(items)")
            #expect(items.first?.reason?.contains("ServiceUnavailable") == true, "\(items)")
            #expect(items.map(\.providerStatus) == [503], "\(items)")
            #expect(fixture.sandbox.statusCounts[503] == 3)
            #expect(fixture.sandbox.accepted.isEmpty)
        }
    }

    @Test("a token APNs calls BadDeviceToken (400): failed with the reason, and the device deactivated")
    func badDeviceTokenPrunes() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.deviceToken()
            fixture.sandbox.setFault(.badDeviceToken, for: token)
            try await fixture.register(token, for: "grace")
            let id = try await fixture.publish(to: "grace")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["failed"] && items.map(\.attempts) == [1], "\(items)")
            #expect(items.first?.reason?.contains("BadDeviceToken") == true, "\(items)")
            #expect(items.map(\.providerStatus) == [400], "\(items)")
            #expect(try await fixture.deviceActiveFlags(of: "grace") == [false])
        }
    }

    @Test("a push whose TTL runs out while it waits for its retry ends expired, never sent")
    func expiredTTL() async throws {
        try await PushFixture.run(retryCap: 5) { fixture in
            let token = PushFixture.deviceToken()
            fixture.sandbox.setFault(.tooManyRequests(retryAfter: 3), for: token, times: 1)
            try await fixture.register(token, for: "heidi")
            let id = try await fixture.publish(to: "heidi", push: #","ttlSeconds":1"#)
            let items = try await fixture.deliveries(of: id) { items in
                items.allSatisfy { !["queued", "sending"].contains($0.status) }
            }
            #expect(items.map(\.status) == ["expired"], "\(items)")
            #expect(fixture.sandbox.accepted(for: token).isEmpty)
        }
    }

    @Test("quiet hours covering now defer the row to their end; nothing is sent")
    func deferredByQuietHours() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ivan")
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            let now = Date()
            let start = now.addingTimeInterval(-3600)
            let end = now.addingTimeInterval(2 * 3600)
            func clock(_ date: Date) -> String {
                let parts = calendar.dateComponents([.hour, .minute], from: date)
                return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
            }
            let preferences =
                #"{"quietHours":{"start":"\#(clock(start))","end":"\#(clock(end))","timeZone":"UTC"}}"#
            let patched = try await fixture.server.send(
                "PATCH", "/v1/me/preferences", json: preferences, token: try fixture.server.token("ivan"))
            try #require(patched.status == 200, "\(patched.text)")
            let id = try await fixture.publish(to: "ivan")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["deferred"], "\(items)")
            // The end's minute, in UTC (whole minutes since the epoch).
            let expectedEnd = Date(timeIntervalSince1970: (end.timeIntervalSince1970 / 60).rounded(.down) * 60)
            #expect(items.first?.nextAttemptAt == expectedEnd, "\(items), expected \(expectedEnd)")
            try await Task.sleep(for: .milliseconds(200))
            #expect(fixture.sandbox.accepted.isEmpty)
        }
    }

    @Test("fifty sends carry one and the same ES256 provider token")
    func oneProviderToken() async throws {
        try await PushFixture.run { fixture in
            let tokens = (0..<50).map { _ in PushFixture.deviceToken() }
            for token in tokens { try await fixture.register(token, for: "judy") }
            let id = try await fixture.publish(to: "judy")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.count == 50 && items.allSatisfy { $0.status == "sent" }, "\(items)")
            let accepted = fixture.sandbox.accepted
            #expect(accepted.count == 50)
            let bearers = Set(accepted.map { push in push.headers.first { $0.name == "authorization" }?.value })
            #expect(bearers.count == 1, "\(bearers)")
            let bearer = try #require(bearers.first ?? nil)
            #expect(bearer.hasPrefix("bearer ") && bearer.split(separator: ".").count == 3, "\(bearer)")
        }
    }

    /// How a test cuts the sandbox's connections while sends are in flight: a reset or an error
    /// GOAWAY loses the streams on them; a graceful GOAWAY answers them and refuses newer ones.
    enum Cut: String, CaseIterable, CustomTestStringConvertible {
        case drop, goAwayInternalError, goAwayNoError

        var testDescription: String { rawValue }

        func apply(to gateway: HTTP2Server) {
            switch self {
            case .drop: gateway.dropConnections()
            case .goAwayInternalError: gateway.goAway(errorCode: .internalError)
            case .goAwayNoError: gateway.goAway(errorCode: .noError)
            }
        }
    }

    @Test(
        "connections cut mid-batch lose nothing: every delivery sent, accepted exactly once",
        arguments: Cut.allCases)
    func cutMidBatchLosesNothing(_ cut: Cut) async throws {
        try await PushFixture.run { fixture in
            let tokens = (0..<100).map { _ in PushFixture.deviceToken() }
            for token in tokens {
                // Only the first request of each token waits: the ones the cut catches in flight.
                fixture.sandbox.setFault(.delay(.seconds(1)), for: token, times: 1)
                try await fixture.register(token, for: "mallory")
            }
            let id = try await fixture.publish(to: "mallory")
            _ = try await fixture.deliveries(of: id, deadline: .seconds(5)) { items in
                items.contains { $0.status == "sending" }
            }
            // Cut only once the sandbox holds a send (its one delay taken): claimed rows alone
            // may not have reached a connection yet, and a cut before any would catch nothing.
            try await eventually("a send is held by the sandbox") {
                tokens.contains { fixture.sandbox.fault(for: $0) == nil }
            }
            cut.apply(to: fixture.gateway)
            let items = try await fixture.settledDeliveries(of: id, deadline: .seconds(20))
            let unsent = items.filter { $0.status != "sent" }
            #expect(items.count == 100 && unsent.isEmpty, "\(unsent)")
            if cut != .goAwayNoError {
                #expect(items.contains { $0.attempts > 1 }, "the cut caught no send in flight")
            }
            let acceptedIDs = fixture.sandbox.accepted.map(\.apnsID)
            #expect(acceptedIDs.count == Set(acceptedIDs).count, "a delivery was accepted twice")
            #expect(Set(acceptedIDs) == Set(items.map(\.id)), "a delivery is missing from the sandbox")
        }
    }
}
