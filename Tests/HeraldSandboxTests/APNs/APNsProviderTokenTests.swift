import Foundation
import HeraldCrypto
import HeraldSandbox
import Testing

@Suite("APNs look-alike: provider tokens")
struct APNsProviderTokenTests {
    @Test(
        "a token signed by another key, or with another kid or iss, or issued ahead, is InvalidProviderToken",
        arguments: ["key", "kid", "iss", "future"])
    func invalid(_ wrong: String) async throws {
        let fixture = try APNsFixture()
        let token =
            switch wrong {
            case "key": try APNsFixture.token(key: SigningKey.generateP256(), iat: APNsFixture.start)
            case "kid": try APNsFixture.token(key: fixture.key, iat: APNsFixture.start, keyID: "OTHERKEY01")
            case "iss": try APNsFixture.token(key: fixture.key, iat: APNsFixture.start, teamID: "OTHERTEAM1")
            default: try APNsFixture.token(key: fixture.key, iat: APNsFixture.start + 300)
            }
        let response = await fixture.sandbox.respond(to: fixture.request(headers: ["authorization": "bearer \(token)"]))
        #expect(response.status == 403)
        #expect(APNsFixture.reason(response) == "InvalidProviderToken")
    }

    @Test("an RS256 token is InvalidProviderToken")
    func wrongAlgorithm() async throws {
        let fixture = try APNsFixture()
        let token = try APNsFixture.token(key: SigningKey.generateRSA(), iat: APNsFixture.start)
        let response = await fixture.sandbox.respond(to: fixture.request(headers: ["authorization": "bearer \(token)"]))
        #expect(APNsFixture.reason(response) == "InvalidProviderToken")
    }

    @Test("a token is taken for an hour, then ExpiredProviderToken (even one never seen before)")
    func expiry() async throws {
        let fixture = try APNsFixture()
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.advance(3_600)
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.advance(1)
        let response = await fixture.sandbox.respond(to: fixture.request())
        #expect(response.status == 403)
        #expect(APNsFixture.reason(response) == "ExpiredProviderToken")
        let fresh = try APNsFixture()
        let stale = try APNsFixture.token(key: fresh.key, iat: APNsFixture.start - 3_601)
        let unseen = await fresh.sandbox.respond(to: fresh.request(headers: ["authorization": "bearer \(stale)"]))
        #expect(APNsFixture.reason(unseen) == "ExpiredProviderToken")
    }

    @Test("a new token within 20 minutes of the last is TooManyProviderTokenUpdates; after, it is taken")
    func updates() async throws {
        let fixture = try APNsFixture()
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.advance(19 * 60)
        let early = try APNsFixture.token(key: fixture.key, iat: APNsFixture.start + 19 * 60)
        let refused = await fixture.sandbox.respond(to: fixture.request(headers: ["authorization": "bearer \(early)"]))
        #expect(refused.status == 429)
        #expect(APNsFixture.reason(refused) == "TooManyProviderTokenUpdates")
        fixture.advance(60)
        let later = try APNsFixture.token(key: fixture.key, iat: APNsFixture.start + 20 * 60)
        #expect(
            await fixture.sandbox.respond(to: fixture.request(headers: ["authorization": "bearer \(later)"])).status
                == 200)
        // Requests still in flight with the previous token are answered.
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
    }

    @Test("an invalidated token is InvalidProviderToken from then on, and a new one is taken at once")
    func invalidated() async throws {
        let fixture = try APNsFixture()
        #expect(await fixture.sandbox.respond(to: fixture.request()).status == 200)
        fixture.sandbox.invalidateProviderToken(fixture.token)
        let refused = await fixture.sandbox.respond(to: fixture.request())
        #expect(refused.status == 403)
        #expect(APNsFixture.reason(refused) == "InvalidProviderToken")
        fixture.advance(60)
        let replacement = try APNsFixture.token(key: fixture.key, iat: APNsFixture.start + 60)
        let request = fixture.request(headers: ["authorization": "bearer \(replacement)"])
        #expect(await fixture.sandbox.respond(to: request).status == 200)
        #expect(APNsFixture.reason(await fixture.sandbox.respond(to: fixture.request())) == "InvalidProviderToken")
    }
}
