import Foundation
import HeraldSandbox
import Testing

@Suite("FCM look-alike: messages:send")
struct FCMSendTests {
    @Test("a valid message: 200 with projects/{id}/messages/{msgid}, recorded as it arrived")
    func accepted() async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        let response = await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token))
        #expect(response.status == 200)
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let name = try #require(object?["name"] as? String)
        #expect(name.hasPrefix("projects/herald-test/messages/0:"))
        let accepted = try #require(fixture.sandbox.accepted.first)
        #expect(
            accepted.name == name && accepted.token == FCMFixture.registrationToken && accepted.accessToken == token)
        #expect((accepted.message["data"] as? [String: String]) == ["notificationId": "n1"])
        #expect(fixture.sandbox.statusCounts == [200: 1])
    }

    /// A request FCM refuses, with the status, canonical status and what names the fault.
    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var message: String
        var status: Int = 400
        var canonical: String = "INVALID_ARGUMENT"
        /// The `BadRequest` field violation, or nil for an `FcmError` refusal.
        var field: String?
        var path: String = FCMFixture.sendPath
        var contentType = "application/json"

        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "unknown field", message: FCMFixture.message(extra: #","priority":"high""#), field: "message"),
        Refusal(
            name: "unknown android field",
            message: FCMFixture.message().replacingOccurrences(of: #""ttl":"3.5s""#, with: #""time_to_live":60"#),
            field: "message.android"),
        Refusal(
            name: "unknown android notification field",
            message: FCMFixture.message().replacingOccurrences(
                of: #""notification":{"sound":"default"}"#, with: #""notification":{"sound":"default","badge":"3"}"#),
            field: "message.android.notification"),
        Refusal(
            name: "number as data value",
            message: FCMFixture.message().replacingOccurrences(of: #""n1""#, with: "12"), field: "message.data[0].value"
        ),
        Refusal(
            name: "priority URGENT", message: FCMFixture.message().replacingOccurrences(of: "HIGH", with: "URGENT"),
            field: "message.android.priority"),
        Refusal(
            name: "unknown fcm_options field",
            message: FCMFixture.message(extra: #","fcm_options":{"analytics_label":"a","link":"x"}"#),
            field: "message.fcm_options"),
        Refusal(
            name: "unknown webpush field", message: FCMFixture.message(extra: #","webpush":{"priority":"high"}"#),
            field: "message.webpush"),
        Refusal(
            name: "apns fcm_options image not a string",
            message: FCMFixture.message().replacingOccurrences(
                of: #""apns":{"headers""#, with: #""apns":{"fcm_options":{"image":3},"headers""#),
            field: "message.apns.fcm_options.image"),
        Refusal(
            name: "ttl without unit", message: FCMFixture.message().replacingOccurrences(of: "3.5s", with: "3600"),
            field: "message.android.ttl"),
        Refusal(
            name: "token and topic",
            message: FCMFixture.message(extra: #","topic":"news""#), field: "message"),
        Refusal(name: "no target", message: #"{"notification":{"title":"Hi"}}"#),
        Refusal(name: "malformed token", message: FCMFixture.message(token: "has space")),
        Refusal(name: "reserved data key", message: #"{"token":"t1","data":{"google.sent_time":"1"}}"#),
        Refusal(
            name: "payload over 4096 bytes",
            message: #"{"token":"t1","data":{"pad":"\#(String(repeating: "x", count: 4_100))"}}"#),
        Refusal(name: "form content type", message: FCMFixture.message(), field: "", contentType: "text/plain"),
        Refusal(
            name: "another project", message: FCMFixture.message(), status: 403, canonical: "PERMISSION_DENIED",
            path: "/v1/projects/someone-else/messages:send"),
    ]

    @Test("Google's refusals, with its error body", arguments: refusals)
    func refused(_ refusal: Refusal) async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        let response = await fixture.sandbox.respond(
            to: FCMFixture.send(
                refusal.message, accessToken: token, path: refusal.path, contentType: refusal.contentType))
        let error = FCMFixture.error(response)
        #expect(response.status == refusal.status, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(error["code"] as? Int == refusal.status && error["status"] as? String == refusal.canonical)
        if let field = refusal.field {
            #expect(FCMFixture.fieldViolations(response) == [field])
        } else if refusal.status == 400 {
            #expect(FCMFixture.errorCode(response) == "INVALID_ARGUMENT")
        }
        #expect(fixture.sandbox.accepted.isEmpty)
    }

    /// Fields of FCM v1's message that firebase-admin sends: each level's `fcm_options`, WebPush,
    /// AndroidConfig's newer flags, and `android.priority` in lowercase, as the SDK writes it.
    @Test("every field of FCM v1's message is taken, and android.priority in either case")
    func everyField() async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        let message = FCMFixture.message(
            extra: #"""
                ,"fcm_options":{"analytics_label":"orders"},\#
                "webpush":{"headers":{"TTL":"60"},"data":{"k":"v"},"notification":{"title":"T","actions":[]},\#
                "fcm_options":{"link":"https://example.com","analytics_label":"w"}}
                """#
        )
        .replacingOccurrences(
            of: #""priority":"HIGH""#,
            with:
                #""priority":"high","fcm_options":{"analytics_label":"a"},"bandwidth_constrained_ok":true,"restricted_satellite_ok":false,"direct_boot_ok":true"#
        )
        .replacingOccurrences(
            of: #""apns":{"headers""#,
            with: #""apns":{"fcm_options":{"analytics_label":"i","image":"https://e.x/a.png"},"headers""#)
        let response = await fixture.sandbox.respond(to: FCMFixture.send(message, accessToken: token))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let normal = FCMFixture.message().replacingOccurrences(of: "HIGH", with: "normal")
        #expect(await fixture.sandbox.respond(to: FCMFixture.send(normal, accessToken: token)).status == 200)
        #expect(fixture.sandbox.accepted.count == 2)
    }

    @Test("no bearer token or an unknown one: 401 UNAUTHENTICATED without FCM details")
    func unauthenticated() async throws {
        let fixture = try FCMFixture()
        let response = await fixture.sandbox.respond(to: FCMFixture.send(accessToken: "ya29.made-up"))
        #expect(response.status == 401 && FCMFixture.error(response)["status"] as? String == "UNAUTHENTICATED")
        #expect(FCMFixture.errorCode(response) == nil)
    }

    @Test("validate_only checks without recording")
    func validateOnly() async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        var request = FCMFixture.send(accessToken: token)
        request.body = Array(#"{"validate_only":true,"message":\#(FCMFixture.message())}"#.utf8)
        let response = await fixture.sandbox.respond(to: request)
        #expect(response.status == 200 && fixture.sandbox.accepted.isEmpty)
    }
}
