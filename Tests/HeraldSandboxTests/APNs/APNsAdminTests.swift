import Foundation
import HeraldSandbox
import Testing

@Suite("APNs look-alike: admin endpoint")
struct APNsAdminTests {
    private func admin(_ fixture: APNsFixture, _ method: String, _ path: String, _ body: String = "") async
        -> HTTP2Response
    {
        await fixture.sandbox.respond(to: HTTP2Request(method: method, path: path, body: Array(body.utf8)))
    }

    @Test("POST /admin/apns/faults sets a fault for a number of requests; none and DELETE clear")
    func faults() async throws {
        let fixture = try APNsFixture()
        let token = APNsFixture.deviceToken
        let set = await admin(
            fixture, "POST", "/admin/apns/faults",
            #"{"deviceToken":"\#(token)","fault":"tooManyRequests","retryAfter":9,"times":1}"#)
        #expect(set.status == 204)
        let limited = await fixture.sandbox.respond(to: fixture.request())
        #expect(limited.status == 429 && limited.header("retry-after") == "9")
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)

        _ = await admin(fixture, "POST", "/admin/apns/faults", #"{"deviceToken":"\#(token)","fault":"unregistered"}"#)
        _ = await admin(fixture, "POST", "/admin/apns/faults", #"{"deviceToken":"\#(token)","fault":"none"}"#)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        _ = await admin(fixture, "POST", "/admin/apns/faults", #"{"deviceToken":"\#(token)","fault":"unregistered"}"#)
        #expect(await admin(fixture, "DELETE", "/admin/apns/faults").status == 204)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
    }

    @Test("bad admin requests: 400 for an unknown fault or body, 404 for an unknown route")
    func mistakes() async throws {
        let fixture = try APNsFixture()
        #expect(
            await admin(fixture, "POST", "/admin/apns/faults", #"{"deviceToken":"x","fault":"fire"}"#).status == 400)
        #expect(await admin(fixture, "POST", "/admin/apns/faults", "nope").status == 400)
        #expect(await admin(fixture, "GET", "/admin/apns/nothing").status == 404)
    }

    @Test("GET /admin/apns/accepted lists notifications with their payload as JSON, and the counts")
    func accepted() async throws {
        let fixture = try APNsFixture()
        _ = await fixture.sandbox.respond(to: fixture.request(headers: ["apns-collapse-id": "c1"]))
        _ = await fixture.sandbox.respond(to: fixture.request(headers: ["apns-priority": "2"]))
        let response = await admin(fixture, "GET", "/admin/apns/accepted")
        #expect(response.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let accepted = try #require(object["accepted"] as? [[String: Any]])
        #expect(accepted.count == 1)
        #expect(accepted.first?["deviceToken"] as? String == APNsFixture.deviceToken)
        #expect(accepted.first?["collapseId"] as? String == "c1")
        #expect((accepted.first?["payload"] as? [String: Any])?["notificationId"] as? String == "n1")
        #expect(accepted.first?["receivedAt"] as? String == "2027-01-15T08:00:00.000Z")
        #expect(object["statusCounts"] as? [String: Int] == ["200": 1, "400": 1])
    }
}
