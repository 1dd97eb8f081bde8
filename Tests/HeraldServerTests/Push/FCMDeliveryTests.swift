import Foundation
import HeraldModel
import HeraldSandbox
import HeraldServerModel
import Testing

/// The delivery worker against the FCM look-alike over TLS, end to end through the HTTP API: the
/// service account's assertion exchanged at the sandbox's token endpoint, the access token
/// cached, every outcome class.
@Suite("FCM delivery against the sandbox", .serialized)
struct FCMDeliveryTests {
    @Test("a push is sent: the sandbox accepted its notification, data and android and apns overrides")
    func sent() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.registrationToken()
            try await fixture.register(token, provider: .fcm, platform: .android, for: "ana")
            let id = try await fixture.publish(
                to: "ana", push: #","priority":"normal","ttlSeconds":600,"collapseId":"order-42""#)
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent"] && items.map(\.attempts) == [1], "\(items)")
            let accepted = fixture.fcm.accepted(for: token)
            #expect(accepted.count == 1)
            let message = try #require(accepted.first?.message)
            #expect(message["token"] as? String == token)
            let notification = message["notification"] as? [String: String]
            #expect(notification == ["title": "Your order shipped", "body": "Arrives Friday"])
            let data = try #require(message["data"] as? [String: String])
            #expect(data["notificationId"] == id && data["type"] == "order.shipped" && data["hasDetail"] == "false")
            let android = try #require(message["android"] as? [String: Any])
            #expect(android["priority"] as? String == "NORMAL" && android["collapse_key"] as? String == "order-42")
            let ttl = try #require(android["ttl"] as? String)
            let seconds = try #require(Int(ttl.dropLast()))
            #expect(ttl.hasSuffix("s") && (0...600).contains(seconds), "\(ttl)")
            #expect((android["notification"] as? [String: String]) == ["sound": PushOptions.defaultSound])
            let apns = try #require(message["apns"] as? [String: Any])
            #expect((apns["headers"] as? [String: String])?["apns-collapse-id"] == "order-42")
            let aps = (apns["payload"] as? [String: Any])?["aps"] as? [String: Any]
            #expect(aps?["badge"] as? Int == 1)
            let metrics = try await fixture.server.get("/metrics").text
            #expect(metrics.contains(#"herald_push_deliveries_total{provider="fcm",outcome="sent"} 1"#))
        }
    }

    @Test("a 503 UNAVAILABLE once is retried, then sent on the second attempt")
    func retriedThenSent() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.registrationToken()
            fixture.fcm.setFault(.unavailable, for: token, times: 1)
            try await fixture.register(token, provider: .fcm, platform: .android, for: "ben")
            let id = try await fixture.publish(to: "ben")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent"] && items.map(\.attempts) == [2], "\(items)")
            #expect(fixture.fcm.accepted(for: token).count == 1)
            #expect(fixture.fcm.statusCounts == [503: 1, 200: 1])
        }
    }

    @Test("a 429 QUOTA_EXCEEDED with Retry-After: 1 is sent again no earlier than a second later")
    func retryAfterHonoured() async throws {
        try await PushFixture.run(retryCap: 5) { fixture in
            let token = PushFixture.registrationToken()
            fixture.fcm.setFault(.tooManyRequests(retryAfter: 1), for: token, times: 1)
            try await fixture.register(token, provider: .fcm, platform: .android, for: "cleo")
            let published = Date()
            let id = try await fixture.publish(to: "cleo")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent"] && items.map(\.attempts) == [2], "\(items)")
            let accepted = try #require(fixture.fcm.accepted(for: token).first)
            #expect(accepted.receivedAt.timeIntervalSince(published) >= 1, "sent before Retry-After ran out")
            #expect(fixture.fcm.statusCounts[429] == 1)
        }
    }

    @Test("a connection dropped without an answer loses nothing: sent again, accepted exactly once")
    func droppedConnection() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.registrationToken()
            fixture.fcm.setFault(.dropConnection, for: token, times: 1)
            try await fixture.register(token, provider: .fcm, platform: .android, for: "dina")
            let id = try await fixture.publish(to: "dina")
            let items = try await fixture.settledDeliveries(of: id)
            // The dropped connection lost the first attempt; the retry went out on a new one.
            #expect(items.map(\.status) == ["sent"] && items.first?.attempts == 2, "\(items)")
            #expect(fixture.fcm.accepted(for: token).count == 1)
            #expect(fixture.fcm.statusCounts == [200: 1])
            #expect(fixture.gateway.connectionsAccepted >= 2, "the connection was never dropped")
        }
    }

    @Test(
        "UNREGISTERED and SENDER_ID_MISMATCH: failed with FCM's code after one attempt, the device deactivated",
        arguments: [(FCMFault.unregistered, "UNREGISTERED"), (.senderIdMismatch, "SENDER_ID_MISMATCH")])
    func pruned(fault: FCMFault, errorCode: String) async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.registrationToken()
            fixture.fcm.setFault(fault, for: token)
            try await fixture.register(token, provider: .fcm, platform: .android, for: "dora")
            let id = try await fixture.publish(to: "dora")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["failed"] && items.map(\.attempts) == [1], "\(items)")
            #expect(items.first?.reason == errorCode, "\(items)")
            #expect(try await fixture.deviceActiveFlags(of: "dora") == [false])
            let metrics = try await fixture.server.get("/metrics").text
            #expect(metrics.contains(#"herald_push_deliveries_total{provider="fcm",outcome="pruned"} 1"#))
        }
    }

    @Test("UNAVAILABLE on every attempt fails after maxAttempts with the last reason; the device stays")
    func failedAfterAttemptLimit() async throws {
        try await PushFixture.run(maxAttempts: 3) { fixture in
            let token = PushFixture.registrationToken()
            fixture.fcm.setFault(.unavailable, for: token)
            try await fixture.register(token, provider: .fcm, platform: .android, for: "eve")
            let id = try await fixture.publish(to: "eve")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["failed"] && items.map(\.attempts) == [3], "\(items)")
            #expect(items.first?.reason == "UNAVAILABLE", "\(items)")
            #expect(fixture.fcm.statusCounts == [503: 3] && fixture.fcm.accepted.isEmpty)
            #expect(try await fixture.deviceActiveFlags(of: "eve") == [true])
        }
    }

    @Test("thirty sends carry one and the same access token, from one exchange")
    func oneAccessToken() async throws {
        try await PushFixture.run { fixture in
            let tokens = (0..<30).map { _ in PushFixture.registrationToken() }
            for token in tokens { try await fixture.register(token, provider: .fcm, platform: .android, for: "fay") }
            let id = try await fixture.publish(to: "fay")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.count == 30 && items.allSatisfy { $0.status == "sent" }, "\(items)")
            let accepted = fixture.fcm.accepted
            #expect(Set(accepted.map(\.token)) == Set(tokens))
            #expect(Set(accepted.map(\.accessToken)).count == 1)
            #expect(fixture.fcm.tokenExchanges == 1)
        }
    }

    @Test("a revoked access token (401) is dropped: one new exchange, and the push is sent on the retry")
    func unauthenticatedReExchanges() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.registrationToken()
            try await fixture.register(token, provider: .fcm, platform: .android, for: "gus")
            let first = try await fixture.publish(to: "gus")
            #expect(try await fixture.settledDeliveries(of: first).map(\.status) == ["sent"])
            fixture.fcm.revokeAccessTokens()
            let second = try await fixture.publish(to: "gus")
            let items = try await fixture.settledDeliveries(of: second)
            #expect(items.map(\.status) == ["sent"] && items.map(\.attempts) == [2], "\(items)")
            #expect(fixture.fcm.statusCounts == [200: 2, 401: 1])
            #expect(fixture.fcm.tokenExchanges == 2)
            let used = fixture.fcm.accepted(for: token).map(\.accessToken)
            #expect(used.count == 2 && used[0] != used[1])
        }
    }

    @Test("APNs and FCM devices of one user both get the push")
    func bothProviders() async throws {
        try await PushFixture.run { fixture in
            let apnsToken = PushFixture.deviceToken()
            let fcmToken = PushFixture.registrationToken()
            try await fixture.register(apnsToken, for: "hal")
            try await fixture.register(fcmToken, provider: .fcm, platform: .android, for: "hal")
            let id = try await fixture.publish(to: "hal")
            let items = try await fixture.settledDeliveries(of: id)
            #expect(items.map(\.status) == ["sent", "sent"], "\(items)")
            #expect(
                fixture.sandbox.accepted(for: apnsToken).count == 1 && fixture.fcm.accepted(for: fcmToken).count == 1)
        }
    }
}
