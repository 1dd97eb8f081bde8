import Foundation
import HeraldCrypto
import HeraldSandbox

/// An ``FCMSandbox`` on a hand-moved clock, with its service-account key, and builders of valid
/// token requests and sends.
final class FCMFixture: Sendable {
    static let projectID = "herald-test"
    static let keyID = "0123456789abcdef0123456789abcdef01234567"
    static let clientEmail = "herald@herald-test.iam.gserviceaccount.com"
    static let tokenURI = "https://127.0.0.1/token"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let registrationToken = "fcm-token_abc:APA91bH-example"
    static let sendPath = "/v1/projects/\(projectID)/messages:send"
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The same key for every fixture: RSA key generation is slow.
    static let key = try! SigningKey.generateRSA()

    let sandbox: FCMSandbox
    private let now = TestNow(FCMFixture.start)

    init() throws {
        let now = self.now
        sandbox = FCMSandbox(
            publicKey: try Self.key.publicKey(), keyID: Self.keyID, clientEmail: Self.clientEmail,
            projectID: Self.projectID, clock: { now.value.withLock { $0 } })
    }

    /// Moves the sandbox's clock forward.
    func advance(_ seconds: TimeInterval) {
        now.value.withLock { $0 += seconds }
    }

    /// A service-account assertion, valid unless told otherwise.
    static func assertion(
        key: SigningKey = FCMFixture.key, keyID: String = FCMFixture.keyID, iss: String = FCMFixture.clientEmail,
        aud: String = FCMFixture.tokenURI, scope: String = FCMFixture.scope, iat: Date = FCMFixture.start,
        lifetime: Int64 = 3_600
    ) throws -> String {
        let issued = Int64(iat.timeIntervalSince1970)
        return try JWT.sign(
            header: ["kid": keyID, "typ": "JWT"],
            claims: ServiceAccountAssertionClaims(
                iss: iss, scope: scope, aud: aud, iat: issued, exp: issued + lifetime),
            key: key)
    }

    /// A token request with `body` (a valid grant for `assertion` by default).
    static func tokenRequest(
        assertion: String, body: String? = nil, contentType: String = "application/x-www-form-urlencoded"
    ) -> HTTP2Request {
        let form =
            body
            ?? "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        return HTTP2Request(
            method: "POST", path: "/token", headers: [HTTP2Header("content-type", contentType)], body: Array(form.utf8))
    }

    /// An access token from the sandbox's token endpoint.
    func accessToken() async throws -> String {
        let response = await sandbox.respond(to: Self.tokenRequest(assertion: try Self.assertion()))
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard response.status == 200, let token = object?["access_token"] as? String else {
            throw FixtureError("no access token: \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    /// A send of `message` (a JSON object's text) authorised with `accessToken`.
    static func send(
        _ message: String = FCMFixture.message(), accessToken: String, path: String = FCMFixture.sendPath,
        contentType: String = "application/json"
    ) -> HTTP2Request {
        HTTP2Request(
            method: "POST", path: path,
            headers: [HTTP2Header("authorization", "Bearer \(accessToken)"), HTTP2Header("content-type", contentType)],
            body: Array(#"{"message":\#(message)}"#.utf8))
    }

    /// A valid message to `token`, with `extra` (a JSON fragment starting with a comma) added.
    static func message(token: String = FCMFixture.registrationToken, extra: String = "") -> String {
        #"""
        {"token":"\#(token)","notification":{"title":"Hi","body":"There"},"data":{"notificationId":"n1"},\#
        "android":{"priority":"HIGH","ttl":"3.5s","collapse_key":"c1","notification":{"sound":"default"}},\#
        "apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"alert":{"title":"Hi"}}}}\#(extra)}
        """#
    }

    /// The `error` object of a Google error body.
    static func error(_ response: HTTP2Response) -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["error"] as? [String: Any] ?? [:]
    }

    /// FCM's `errorCode` in the `FcmError` detail of an error body.
    static func errorCode(_ response: HTTP2Response) -> String? {
        let details = error(response)["details"] as? [[String: Any]] ?? []
        return details.first { $0["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }?[
            "errorCode"] as? String
    }

    /// The fields named by the `BadRequest` detail of an error body.
    static func fieldViolations(_ response: HTTP2Response) -> [String] {
        let details = error(response)["details"] as? [[String: Any]] ?? []
        return details.filter { $0["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest" }
            .flatMap { $0["fieldViolations"] as? [[String: Any]] ?? [] }.compactMap { $0["field"] as? String }
    }

    /// The OAuth `error` of a token endpoint refusal.
    static func oauthError(_ response: HTTP2Response) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["error"] as? String
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
