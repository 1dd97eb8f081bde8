import Foundation
import HeraldCrypto
import HeraldModel
import HeraldPush
import Testing

@Suite("FCM client")
struct FCMClientTests {
    static let registrationToken = "fcm-token_abc:APA91bH-example"
    let clock = TestClock()

    func client(_ fake: FakeFCM) -> FCMClient {
        FCMClient(
            configuration: FCMConfiguration(baseURL: FakeFCM.baseURL + "/", projectID: fake.tokens.account.projectID),
            accessTokens: FCMAccessTokenCache(account: fake.tokens.account, clock: clock.closure, send: fake.exchange),
            exchange: fake.exchange)
    }

    func send(_ client: FCMClient, payload: PushPayload = APNsFixtures.payload()) async throws -> PushVerdict {
        try await client.send(
            deviceToken: Self.registrationToken, deliveryID: APNsFixtures.deliveryID, payload: payload, expiresAt: nil,
            now: clock.now)
    }

    /// The verdict of a send FCM accepted last: `.sent` with the name it answered.
    func accepted(_ fake: FakeFCM) -> PushVerdict {
        .sent(providerMessageID: fake.sandbox.accepted.last?.name, status: 200)
    }

    @Test("sends pass a strict FCM with one access token for many; the verdict carries FCM's name")
    func sent() async throws {
        let fake = try FakeFCM(clock: clock)
        let client = client(fake)
        for _ in 0..<5 {
            let verdict = try await send(client)
            #expect(verdict == accepted(fake))
            #expect(fake.sandbox.accepted.last?.name.hasPrefix("projects/herald-test/messages/") == true)
            clock.advance(minutes: 5)
        }
        #expect(fake.received.count == 5 && fake.refusals.isEmpty && fake.sandbox.accepted.count == 5)
        #expect(Set(fake.received.compactMap(FakeFCM.bearer)) == Set(fake.tokens.issued.prefix(1)))
        #expect(fake.tokens.calls == 1)
    }

    @Test("a 401 drops the access token: the retry exchanges a new one and is accepted")
    func unauthenticated() async throws {
        let fake = try FakeFCM(clock: clock)
        let client = client(fake)
        #expect(try await send(client) == accepted(fake))
        fake.revokeAccessTokens()
        #expect(try await send(client) == .retry(reason: "UNAUTHENTICATED", retryAfter: nil, status: 401))
        #expect(try await send(client) == accepted(fake))
        let issued = fake.tokens.issued
        #expect(issued.count == 2 && issued[0] != issued[1])
        #expect(fake.received.compactMap(FakeFCM.bearer) == [issued[0], issued[0], issued[1]])
        #expect(fake.tokens.calls == 2)
    }

    @Test("UNREGISTERED and SENDER_ID_MISMATCH prune; QUOTA_EXCEEDED retries with its Retry-After, else a minute")
    func errorVerdicts() async throws {
        let fake = try FakeFCM(clock: clock)
        let client = client(fake)
        fake.script(404, body: FCMResponseTableTests.body(404, "NOT_FOUND", "gone", errorCode: "UNREGISTERED"))
        #expect(try await send(client) == .pruned(reason: "UNREGISTERED", status: 404))
        fake.script(
            403, body: FCMResponseTableTests.body(403, "PERMISSION_DENIED", "x", errorCode: "SENDER_ID_MISMATCH"))
        #expect(try await send(client) == .pruned(reason: "SENDER_ID_MISMATCH", status: 403))
        fake.script(
            429, body: FCMResponseTableTests.body(429, "RESOURCE_EXHAUSTED", "q", errorCode: "QUOTA_EXCEEDED"),
            headers: [HTTP2Header("retry-after", "7")])
        #expect(try await send(client) == .retry(reason: "QUOTA_EXCEEDED", retryAfter: "7", status: 429))
        fake.script(
            429, body: FCMResponseTableTests.body(429, "RESOURCE_EXHAUSTED", "q", errorCode: "QUOTA_EXCEEDED"))
        #expect(
            try await send(client) == .retry(reason: "QUOTA_EXCEEDED", retryAfter: "60", status: 429),
            "without Retry-After, FCM's quota asks for at least a minute")
        fake.script(503, body: FCMResponseTableTests.body(503, "UNAVAILABLE", "busy", errorCode: "UNAVAILABLE"))
        #expect(try await send(client) == .retry(reason: "UNAVAILABLE", retryAfter: nil, status: 503), "backoff alone")
        fake.script(403, body: FCMResponseTableTests.body(403, "PERMISSION_DENIED", "no access"))
        #expect(try await send(client) == .failed(reason: "PERMISSION_DENIED", status: 403))
    }

    @Test("a refused token exchange is a retry, and nothing is sent")
    func tokenExchangeRefused() async throws {
        let fake = try FakeFCM(clock: clock)
        fake.tokens.answer(
            HTTP2Response(status: 400, body: Array(#"{"error":"invalid_grant","error_description":"bad"}"#.utf8)))
        #expect(
            try await send(client(fake))
                == .retry(reason: "AccessTokenUnavailable: token_request_rejected", retryAfter: nil))
        #expect(fake.received.isEmpty)
    }

    @Test("a payload over 4096 bytes fails and is never sent")
    func tooBig() async throws {
        let fake = try FakeFCM(clock: clock)
        let large = APNsFixtures.payload(data: ["pad": String(repeating: "x", count: 4_096)])
        #expect(try await send(client(fake), payload: large) == .failed(reason: "MessageTooBig"))
        #expect(fake.received.isEmpty)
    }

    @Test("a refused connection is a retry")
    func connectionRefused() async throws {
        let fake = try FakeFCM(clock: clock)
        let http = HTTP2Client()
        let client = FCMClient(
            configuration: FCMConfiguration(baseURL: "http://127.0.0.1:1", projectID: "herald-test"),
            accessTokens: FCMAccessTokenCache(account: fake.tokens.account, clock: clock.closure, send: fake.exchange),
            exchange: { try await http.send($0) })
        #expect(try await send(client) == .retry(reason: "Transport: connectionRefused", retryAfter: nil))
        await http.shutdown()
    }
}
