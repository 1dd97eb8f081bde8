import Foundation
import HeraldSandbox
import Testing

@Suite("APNs look-alike: faults per device token")
struct APNsFaultTests {
    @Test("unregistered: 410 with the time the fault was set, in milliseconds")
    func unregistered() async throws {
        let fixture = try APNsFixture()
        fixture.sandbox.setFault(.unregistered, for: APNsFixture.deviceToken)
        fixture.advance(5)
        let response = await fixture.sandbox.respond(to: fixture.request())
        #expect(response.status == 410)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(object["reason"] as? String == "Unregistered")
        #expect(object["timestamp"] as? Int == Int(APNsFixture.start.timeIntervalSince1970) * 1000)
        #expect(fixture.sandbox.accepted.isEmpty)
    }

    @Test("badDeviceToken, tooManyRequests with retry-after, serviceUnavailable")
    func refusals() async throws {
        let fixture = try APNsFixture()
        let cases: [(APNsFault, Int, String)] = [
            (.badDeviceToken, 400, "BadDeviceToken"), (.tooManyRequests(retryAfter: 7), 429, "TooManyRequests"),
            (.serviceUnavailable, 503, "ServiceUnavailable"),
        ]
        for (fault, status, reason) in cases {
            fixture.sandbox.setFault(fault, for: APNsFixture.deviceToken)
            let response = await fixture.sandbox.respond(to: fixture.request())
            #expect(response.status == status)
            #expect(APNsFixture.reason(response) == reason)
            #expect(response.header("retry-after") == (status == 429 ? "7" : nil))
        }
        #expect(fixture.sandbox.statusCounts == [400: 1, 429: 1, 503: 1])
    }

    @Test("a fault for a number of requests, then accepted; other tokens are not touched; cleared")
    func countedAndCleared() async throws {
        let fixture = try APNsFixture()
        fixture.sandbox.setFault(.serviceUnavailable, for: APNsFixture.deviceToken, times: 2)
        let other = "/3/device/" + String(repeating: "cd", count: 32)
        #expect(await fixture.sandbox.respond(to: fixture.request(path: other)).status == 200)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 503)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 503)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.sandbox.setFault(.badDeviceToken, for: APNsFixture.deviceToken)
        fixture.sandbox.clearFault(for: APNsFixture.deviceToken)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.sandbox.setFault(.badDeviceToken, for: APNsFixture.deviceToken)
        fixture.sandbox.clearFaults()
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        #expect(fixture.sandbox.accepted(for: APNsFixture.deviceToken).count == 3)
    }

    @Test("a malformed request is refused for what it is, not for the token's fault")
    func checksFirst() async throws {
        let fixture = try APNsFixture()
        fixture.sandbox.setFault(.unregistered, for: APNsFixture.deviceToken)
        let response = await fixture.sandbox.respond(to: fixture.request(headers: ["apns-topic": nil]))
        #expect(APNsFixture.reason(response) == "MissingTopic")
    }

    @Test("delay: accepted, after the delay")
    func delay() async throws {
        let fixture = try APNsFixture()
        fixture.sandbox.setFault(.delay(.milliseconds(200)), for: APNsFixture.deviceToken)
        let started = ContinuousClock.now
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }
}
