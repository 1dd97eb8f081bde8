import Foundation
import HeraldCrypto
import HeraldPush
import Testing

@Suite("APNs client")
struct APNsClientTests {
    let clock = TestClock()

    func send(_ client: APNsClient, deviceToken: String = APNsFixtures.deviceToken) async throws -> PushVerdict {
        try await client.send(
            deviceToken: deviceToken, deliveryID: APNsFixtures.deliveryID, payload: APNsFixtures.payload(),
            expiresAt: nil, now: clock.now)
    }

    func bearer(_ request: HTTP2Request) -> String? {
        request.header("authorization").map { String($0.dropFirst("bearer ".count)) }
    }

    @Test("what the client sends passes every check of a strict APNs, one provider token for many sends")
    func strict() async throws {
        let (client, fake) = try APNsFixtures.client(clock: clock)
        for _ in 0..<5 {
            #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
            clock.advance(minutes: 5)
        }
        #expect(fake.received.count == 5 && fake.refusals.isEmpty)
        #expect(Set(fake.received.compactMap(bearer)).count == 1)
    }

    @Test("403 InvalidProviderToken drops the token: the retry signs anew and is accepted")
    func invalidProviderToken() async throws {
        let (client, fake) = try APNsFixtures.client(clock: clock)
        #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
        fake.refuse(try #require(fake.received.last.flatMap(bearer)))
        #expect(try await send(client) == .retry(reason: "InvalidProviderToken", retryAfter: nil, status: 403))
        #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
        let tokens = fake.received.compactMap(bearer)
        #expect(tokens.count == 3 && tokens[1] == tokens[0] && tokens[2] != tokens[0])
        let claims = try JWT.verify(tokens[2], key: APNsFixtures.key.publicKey(), claims: APNsProviderClaims.self)
        #expect(claims.header == JWTHeader(alg: .es256, kid: FakeAPNs.keyID))
    }

    @Test("403 ExpiredProviderToken renews a token 20 minutes old, never a younger one")
    func expiredProviderToken() async throws {
        let (client, fake) = try APNsFixtures.client(clock: clock)
        fake.script(403, reason: "ExpiredProviderToken")
        #expect(try await send(client) == .retry(reason: "ExpiredProviderToken", retryAfter: nil, status: 403))
        #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
        clock.advance(minutes: 20)
        fake.script(403, reason: "ExpiredProviderToken")
        #expect(try await send(client) == .retry(reason: "ExpiredProviderToken", retryAfter: nil, status: 403))
        #expect(try await send(client) == .sent(providerMessageID: APNsFixtures.deliveryID, status: 200))
        let tokens = fake.received.compactMap(bearer)
        #expect(tokens[0] == tokens[1] && tokens[1] == tokens[2] && tokens[3] != tokens[2])
    }

    @Test("a push APNs would refuse is never sent: too large fails, a malformed token prunes")
    func neverSent() async throws {
        let (client, fake) = try APNsFixtures.client(clock: clock)
        let large = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_096)])
        let verdict = try await client.send(
            deviceToken: APNsFixtures.deviceToken, deliveryID: APNsFixtures.deliveryID, payload: large,
            expiresAt: nil, now: clock.now)
        #expect(verdict == .failed(reason: "PayloadTooLarge"))
        #expect(try await send(client, deviceToken: "not-a-token") == .pruned(reason: "BadDeviceToken"))
        #expect(fake.received.isEmpty)
    }

    @Test("a refused connection is a retry")
    func connectionRefused() async throws {
        let http = HTTP2Client()
        let client = APNsClient(
            configuration: APNsConfiguration(baseURL: "http://127.0.0.1:1", topic: FakeAPNs.topic),
            providerToken: try APNsFixtures.providerToken(clock: clock), exchange: { try await http.send($0) })
        #expect(try await send(client) == .retry(reason: "Transport: connectionRefused", retryAfter: nil))
        await http.shutdown()
    }

    @Test("a transport failure that retrying cannot mend is final")
    func unsupportedProtocol() async throws {
        let http = HTTP2Client()
        let client = APNsClient(
            configuration: APNsConfiguration(baseURL: "gopherx://127.0.0.1:1", topic: FakeAPNs.topic),
            providerToken: try APNsFixtures.providerToken(clock: clock), exchange: { try await http.send($0) })
        #expect(try await send(client) == .failed(reason: "Transport: invalidRequest"))
        await http.shutdown()
    }

    @Test("with the retry policy: 429 with Retry-After 120 is retried 120 s later; the 8th attempt fails")
    func withPolicy() async throws {
        let (client, fake) = try APNsFixtures.client(clock: clock)
        var random = SeededRandom(state: 1)
        let policy = RetryPolicy()
        for attempt in [1, 8] {
            fake.script(429, reason: "TooManyRequests", headers: [HTTP2Header("retry-after", "120")])
            let decision = policy.decide(try await send(client), attempt: attempt, now: clock.now, using: &random)
            #expect(
                decision
                    == (attempt < 8
                        ? .retry(at: clock.now + 120, reason: "TooManyRequests")
                        : .failed(reason: "TooManyRequests")))
        }
    }

    @Test("an exchange that fails some other way is a retry")
    func otherFailure() async throws {
        struct Broken: Error {}
        let client = APNsClient(
            configuration: APNsFixtures.configuration, providerToken: try APNsFixtures.providerToken(clock: clock),
            exchange: { _ in throw Broken() })
        #expect(try await send(client) == .retry(reason: "Transport: Broken", retryAfter: nil))
    }

    @Test("cancellation propagates instead of becoming a verdict")
    func cancelled() async throws {
        let client = APNsClient(
            configuration: APNsFixtures.configuration, providerToken: try APNsFixtures.providerToken(clock: clock),
            exchange: { _ in throw CancellationError() })
        await #expect(throws: CancellationError.self) { try await send(client) }
    }
}
