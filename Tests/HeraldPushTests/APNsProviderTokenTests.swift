import Foundation
import HeraldCrypto
import HeraldPush
import Testing

@Suite("APNs provider token")
struct APNsProviderTokenTests {
    static let key = try! SigningKey.generateP256()
    let clock = TestClock()

    func makeToken() throws -> APNsProviderToken {
        try APNsProviderToken(key: Self.key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", clock: clock.closure)
    }

    @Test("the token is an ES256 JWT with kid, iss and iat that the public key verifies")
    func shape() throws {
        let token = try makeToken().current()
        let verified = try JWT.verify(token, key: Self.key.publicKey(), claims: APNsProviderClaims.self)
        #expect(verified.header == JWTHeader(alg: .es256, kid: "ABC123DEFG"))
        #expect(verified.claims == APNsProviderClaims(iss: "DEF123GHIJ", iat: 1_750_000_000))
        let header = try #require(Base64URL.decode(String(token.prefix { $0 != "." })))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
    }

    @Test("one token serves every request until 50 minutes, then a new one is minted")
    func reuse() throws {
        let source = try makeToken()
        let first = try source.current()
        clock.advance(minutes: 19, seconds: 59)
        #expect(try source.current() == first)
        clock.advance(minutes: 30)
        #expect(try source.current() == first)
        clock.advance(seconds: 1)
        let second = try source.current()
        #expect(second != first)
        let claims = try JWT.verify(second, key: Self.key, claims: APNsProviderClaims.self).claims
        #expect(claims.iat == 1_750_000_000 + 50 * 60)
        clock.advance(minutes: 49)
        #expect(try source.current() == second)
    }

    @Test("ExpiredProviderToken forces a new token only once the current one is 20 minutes old")
    func expiredRejection() throws {
        let source = try makeToken()
        let first = try source.current()
        clock.advance(minutes: 19, seconds: 59)
        #expect(!source.rejected(first, .expired))
        #expect(try source.current() == first)
        clock.advance(seconds: 1)
        #expect(source.rejected(first, .expired))
        let second = try source.current()
        #expect(second != first)
        #expect(!source.rejected(first, .expired), "a late answer about the old token changes nothing")
        #expect(try source.current() == second)
    }

    @Test("InvalidProviderToken forces a new token at once; a stale report does not")
    func invalidRejection() throws {
        let source = try makeToken()
        let first = try source.current()
        clock.advance(seconds: 1)
        #expect(source.rejected(first, .invalid))
        let second = try source.current()
        #expect(second != first)
        #expect(!source.rejected(first, .invalid))
        #expect(try source.current() == second)
    }

    @Test("concurrent callers share one token")
    func concurrent() async throws {
        let source = try makeToken()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try source.current() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
    }

    @Test("a signed token is not in use until adopted; an adopted token serves until its own refresh age")
    func signAndAdopt() throws {
        let source = try makeToken()
        let other = try makeToken()
        let offered = try other.sign()
        #expect(offered.issuedAt == clock.now)
        let mine = try source.current()
        #expect(mine != offered.token, "signing does not change what the signer sends")
        #expect(try other.current() != offered.token)
        #expect(source.adopt(offered.token, issuedAt: offered.issuedAt))
        #expect(try source.current() == offered.token)
        clock.advance(minutes: 49, seconds: 59)
        #expect(try source.current() == offered.token)
        clock.advance(seconds: 1)
        #expect(try source.current() != offered.token, "at 50 minutes it signs its own")
    }

    @Test("adopt ignores a token issued before the current one, and one APNs refused")
    func adoptIgnoresOlderAndRefused() throws {
        let source = try makeToken()
        let older = try source.sign()
        clock.advance(minutes: 1)
        let current = try source.current()
        #expect(!source.adopt(older.token, issuedAt: older.issuedAt))
        #expect(try source.current() == current)
        #expect(source.rejected(current, .invalid))
        #expect(source.rejectedTokens == [current])
        #expect(!source.adopt(current, issuedAt: clock.now), "a refused token is not adopted again")
        #expect(try source.current() != current)
    }

    @Test("an RSA or public key is refused")
    func wrongKey() throws {
        #expect(throws: CryptoError.invalidKey) {
            try APNsProviderToken(key: SigningKey.generateRSA(), keyID: "K", teamID: "T")
        }
        #expect(throws: CryptoError.invalidKey) {
            try APNsProviderToken(key: Self.key.publicKey(), keyID: "K", teamID: "T")
        }
    }
}
