import Foundation
import HeraldSandbox
import Testing

@Suite("FCM look-alike: faults and the admin endpoint")
struct FCMFaultTests {
    func admin(_ fixture: FCMFixture, _ method: String, _ path: String, _ body: String = "") async -> HTTP2Response {
        await fixture.sandbox.respond(
            to: HTTP2Request(method: method, path: "/admin/fcm/" + path, body: Array(body.utf8)))
    }

    func setFault(_ fixture: FCMFixture, _ fault: String, extra: String = "") async -> Int {
        let body = #"{"deviceToken":"\#(FCMFixture.registrationToken)","fault":"\#(fault)"\#(extra)}"#
        return await admin(fixture, "POST", "faults", body).status
    }

    @Test(
        "each fault answers FCM's error for the token, after the checks",
        arguments: [
            ("unregistered", 404, "NOT_FOUND", "UNREGISTERED"),
            ("senderIdMismatch", 403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
            ("tooManyRequests", 429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
            ("unavailable", 503, "UNAVAILABLE", "UNAVAILABLE"),
        ])
    func faults(fault: String, status: Int, canonical: String, errorCode: String) async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        #expect(await setFault(fixture, fault, extra: #","retryAfter":7,"times":1"#) == 204)
        // A malformed message is refused for what it is, and does not use up the fault.
        let malformed = await fixture.sandbox.respond(
            to: FCMFixture.send(FCMFixture.message(extra: #","bogus":1"#), accessToken: token))
        #expect(malformed.status == 400)
        let faulted = await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token))
        #expect(faulted.status == status && FCMFixture.errorCode(faulted) == errorCode)
        #expect(FCMFixture.error(faulted)["status"] as? String == canonical)
        #expect(faulted.header("retry-after") == (fault == "tooManyRequests" ? "7" : nil))
        #expect(await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token)).status == 200)
        #expect(fixture.sandbox.statusCounts == [400: 1, status: 1, 200: 1])
    }

    @Test("a fault without times lasts until cleared; the listing shows what was accepted")
    func lastingFaultAndListing() async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        #expect(await setFault(fixture, "unregistered") == 204)
        for _ in 0..<3 { #expect(await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token)).status == 404) }
        #expect(await setFault(fixture, "none") == 204)
        #expect(await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token)).status == 200)
        #expect(await setFault(fixture, "sideways") == 400)

        let listed = await admin(fixture, "GET", "accepted")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])
        let accepted = try #require(object["accepted"] as? [[String: Any]])
        #expect(accepted.map { $0["token"] as? String } == [FCMFixture.registrationToken])
        #expect(
            ((accepted.first?["message"] as? [String: Any])?["android"] as? [String: Any])?["ttl"] as? String == "3.5s")
        #expect((object["statusCounts"] as? [String: Int]) == ["404": 3, "200": 1])
        #expect(object["tokenExchanges"] as? Int == 1)
    }
}
