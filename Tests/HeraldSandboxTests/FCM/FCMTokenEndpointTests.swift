import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

@Suite("FCM look-alike: the OAuth2 token endpoint")
struct FCMTokenEndpointTests {
    @Test("a valid assertion gets a Bearer token for 3599 seconds that authorises sends")
    func issued() async throws {
        let fixture = try FCMFixture()
        let response = await fixture.sandbox.respond(to: FCMFixture.tokenRequest(assertion: try FCMFixture.assertion()))
        #expect(response.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(object["expires_in"] as? Int == 3_599 && object["token_type"] as? String == "Bearer")
        let token = try #require(object["access_token"] as? String)
        let sent = await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token))
        #expect(sent.status == 200, "\(String(decoding: sent.body, as: UTF8.self))")
        #expect(fixture.sandbox.tokenExchanges == 1)
    }

    /// An assertion or request Google refuses, and the OAuth error it answers.
    enum Refused: String, CaseIterable, CustomTestStringConvertible {
        case forgedSignature, wrongKeyID, wrongIssuer, wrongAudience, noFirebaseScope, overAnHour, issuedInFuture,
            expired, wrongGrantType, missingAssertion, notAForm

        var testDescription: String { rawValue }

        var expectedError: String {
            switch self {
            case .noFirebaseScope: "invalid_scope"
            case .wrongGrantType: "unsupported_grant_type"
            case .missingAssertion, .notAForm: "invalid_request"
            default: "invalid_grant"
            }
        }

        func request() throws -> HTTP2Request {
            let later = FCMFixture.start.addingTimeInterval(600)
            let earlier = FCMFixture.start.addingTimeInterval(-3_700)
            let assertion: String
            switch self {
            case .forgedSignature: assertion = try FCMFixture.assertion(key: SigningKey.generateRSA())
            case .wrongKeyID: assertion = try FCMFixture.assertion(keyID: "another")
            case .wrongIssuer: assertion = try FCMFixture.assertion(iss: "someone@else.iam.gserviceaccount.com")
            case .wrongAudience: assertion = try FCMFixture.assertion(aud: "https://accounts.example.com/token")
            case .noFirebaseScope:
                assertion = try FCMFixture.assertion(
                    scope:
                        "https://www.googleapis.com/auth/devstorage.read_only https://www.googleapis.com/auth/firebase")
            case .overAnHour: assertion = try FCMFixture.assertion(lifetime: 7_200)
            case .issuedInFuture: assertion = try FCMFixture.assertion(iat: later)
            case .expired: assertion = try FCMFixture.assertion(iat: earlier)
            case .wrongGrantType:
                return FCMFixture.tokenRequest(assertion: "", body: "grant_type=client_credentials&assertion=x")
            case .missingAssertion:
                return FCMFixture.tokenRequest(
                    assertion: "", body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
            case .notAForm:
                return FCMFixture.tokenRequest(assertion: try FCMFixture.assertion(), contentType: "application/json")
            }
            return FCMFixture.tokenRequest(assertion: assertion)
        }
    }

    /// What google-auth sends (firebase-admin's credentials): Google's audience whatever the
    /// token URI, `cloud-platform` among its scopes; and an assertion header without `kid`.
    @Test(
        "Google's audience, the cloud-platform scope and a header without kid are taken, as Google takes them",
        arguments: ["googleAudience", "cloudPlatformScope", "noKeyID"])
    func permissive(_ variant: String) async throws {
        let fixture = try FCMFixture()
        let assertion: String
        switch variant {
        case "googleAudience": assertion = try FCMFixture.assertion(aud: "https://oauth2.googleapis.com/token")
        case "cloudPlatformScope":
            assertion = try FCMFixture.assertion(
                scope: "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase")
        default:
            let issued = Int64(FCMFixture.start.timeIntervalSince1970)
            assertion = try JWT.sign(
                header: ["typ": "JWT"],
                claims: ServiceAccountAssertionClaims(
                    iss: FCMFixture.clientEmail, scope: FCMFixture.scope, aud: FCMFixture.tokenURI, iat: issued,
                    exp: issued + 3_600),
                key: FCMFixture.key)
        }
        let response = await fixture.sandbox.respond(to: FCMFixture.tokenRequest(assertion: assertion))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(fixture.sandbox.tokenExchanges == 1)
    }

    @Test("Google's refusals: 400 with its OAuth error, and no token issued", arguments: Refused.allCases)
    func refused(_ refused: Refused) async throws {
        let fixture = try FCMFixture()
        let response = await fixture.sandbox.respond(to: try refused.request())
        #expect(response.status == 400)
        #expect(
            FCMFixture.oauthError(response) == refused.expectedError,
            "\(String(decoding: response.body, as: UTF8.self))")
        #expect(fixture.sandbox.tokenExchanges == 0)
    }

    @Test("an access token stops working once it expires, or once the admin endpoint revokes it")
    func expiryAndRevocation() async throws {
        let fixture = try FCMFixture()
        let token = try await fixture.accessToken()
        fixture.advance(3_598)
        #expect(await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token)).status == 200)
        fixture.advance(1)
        let expired = await fixture.sandbox.respond(to: FCMFixture.send(accessToken: token))
        #expect(expired.status == 401 && FCMFixture.error(expired)["status"] as? String == "UNAUTHENTICATED")

        let fresh = try await fixture.accessToken()
        let revoke = await fixture.sandbox.respond(to: HTTP2Request(method: "DELETE", path: "/admin/fcm/access-tokens"))
        #expect(revoke.status == 204)
        #expect(await fixture.sandbox.respond(to: FCMFixture.send(accessToken: fresh)).status == 401)
    }
}
