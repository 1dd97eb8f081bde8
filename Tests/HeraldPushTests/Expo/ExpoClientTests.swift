import Foundation
import HeraldModel
import Testing

@testable import HeraldPush

@Suite("Expo client")
struct ExpoClientTests {
    static func message(_ index: Int) -> ExpoMessage {
        ExpoMessage(
            to: "ExponentPushToken[device-\(index)]", title: "Shipped", body: "On its way",
            data: ["notificationId": "n-\(index)"], sound: "default", badge: 2, priority: .high, ttl: 600)
    }

    static func client(_ fake: FakeExpo, accessToken: String? = nil) -> ExpoClient {
        ExpoClient(
            configuration: ExpoConfiguration(baseURL: FakeExpo.baseURL + "/", accessToken: accessToken),
            exchange: fake.exchange)
    }

    @Test("a batch is one POST of a JSON array with content-type, accept and the bearer token, and no accept-encoding")
    func requestShape() async throws {
        let fake = FakeExpo(accessToken: "secret-token")
        let verdicts = try await Self.client(fake, accessToken: "secret-token").send((0..<100).map(Self.message))
        let tickets = fake.tickets
        #expect(verdicts == tickets.map { .sent(providerMessageID: $0, status: 200) } && tickets.count == 100)
        let request = try #require(fake.received.first)
        #expect(fake.received.count == 1 && fake.refusals.isEmpty)
        #expect(request.header("accept-encoding") == nil && request.header("accept") == "application/json")
        #expect(request.header("authorization") == "Bearer secret-token")
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [[String: Any]])
        #expect(sent[7]["to"] as? String == "ExponentPushToken[device-7]" && sent[7]["ttl"] as? Int == 600)
        #expect(
            sent[7]["data"] as? [String: String] == ["notificationId": "n-7"]
                && sent[7]["priority"] as? String == "high")
    }

    @Test("without an access token no authorization header is sent, and a service that wants one refuses: failed")
    func missingAccessToken() async throws {
        let fake = FakeExpo(accessToken: "secret-token")
        let verdicts = try await Self.client(fake).send([Self.message(1), Self.message(2)])
        #expect(verdicts == Array(repeating: .failed(reason: "UNAUTHORIZED", status: 401), count: 2))
        #expect(fake.received.first?.header("authorization") == nil)
    }

    @Test(
        "each ticket gets its own verdict: ok sent, DeviceNotRegistered pruned, MessageRateExceeded retried, others failed"
    )
    func ticketMapping() async throws {
        let fake = FakeExpo()
        fake.script(
            200,
            #"""
            {"data":[{"status":"ok","id":"t-1"},
            {"status":"error","message":"\"ExponentPushToken[device-1]\" is not a registered push notification recipient","details":{"error":"DeviceNotRegistered","expoPushToken":"ExponentPushToken[device-1]"}},
            {"status":"error","message":"too frequent","details":{"error":"MessageRateExceeded"}},
            {"status":"error","message":"too big","details":{"error":"MessageTooBig"}},
            {"status":"error","message":"bad credentials","details":{"error":"InvalidCredentials"}},
            {"status":"error","message":"something else"}]}
            """#)
        let verdicts = try await Self.client(fake).send((0..<6).map(Self.message))
        #expect(
            verdicts == [
                // Each ticket came in one 200 answer: that is the provider's status of each.
                .sent(providerMessageID: "t-1", status: 200), .pruned(reason: "DeviceNotRegistered", status: 200),
                .retry(reason: "MessageRateExceeded", retryAfter: nil, status: 200),
                .failed(reason: "MessageTooBig", status: 200), .failed(reason: "InvalidCredentials", status: 200),
                .failed(reason: "Expo: something else", status: 200),
            ])
    }

    @Test("a whole-request 429 or 5xx retries every message with Retry-After; another 4xx fails them")
    func requestErrors() async throws {
        let fake = FakeExpo()
        fake.script(
            429, #"{"errors":[{"code":"TOO_MANY_REQUESTS","message":"slow down"}]}"#,
            headers: [HTTP2Header("retry-after", "7")])
        fake.script(503, "<html>unavailable</html>")
        fake.script(400, #"{"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"mixed projects"}]}"#)
        let client = Self.client(fake)
        let pair = [Self.message(1), Self.message(2)]
        #expect(
            try await client.send(pair)
                == Array(repeating: .retry(reason: "TOO_MANY_REQUESTS", retryAfter: "7", status: 429), count: 2))
        #expect(
            try await client.send(pair)
                == Array(repeating: .retry(reason: "HTTP 503", retryAfter: nil, status: 503), count: 2))
        #expect(
            try await client.send(pair)
                == Array(repeating: .failed(reason: "PUSH_TOO_MANY_EXPERIENCE_IDS", status: 400), count: 2))
    }

    @Test("a request mixing Expo projects is sent again per project, as Expo's details group the tokens")
    func mixedProjects() async throws {
        let fake = FakeExpo()
        let token = { (index: Int) in Self.message(index).to ?? "" }
        fake.script(
            400,
            #"""
            {"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"All push notification messages in the same request must be for the same project; separate your push notifications by project.",
            "details":{"@acme/shop-dev":["\#(token(2))"],"@acme/shop":["\#(token(1))","\#(token(3))"]}}]}
            """#)
        let verdicts = try await Self.client(fake).send((1...4).map(Self.message))
        #expect(verdicts.prefix(3).allSatisfy { if case .sent = $0 { true } else { false } })
        #expect(
            verdicts.last == .failed(reason: "PUSH_TOO_MANY_EXPERIENCE_IDS", status: 400),
            "a message Expo names under no project is not guessed at")
        let sent = fake.received.map { request in
            ((try? JSONSerialization.jsonObject(with: Data(request.body))) as? [[String: Any]] ?? []).compactMap {
                $0["to"] as? String
            }
        }
        #expect(sent == [(1...4).map(token), [token(1), token(3)], [token(2)]])
        #expect(fake.refusals.isEmpty)
    }

    @Test("tickets that do not match the messages are retried, never taken as sent")
    func unmatchedTickets() async throws {
        let fake = FakeExpo()
        fake.script(200, #"{"data":[{"status":"ok","id":"only-one"}]}"#)
        let verdicts = try await Self.client(fake).send([Self.message(1), Self.message(2)])
        #expect(
            verdicts
                == Array(repeating: .retry(reason: "ExpoUnreadableTickets", retryAfter: nil, status: 200), count: 2))
    }

    @Test("a transport failure is a retry for every message")
    func transport() async throws {
        let client = ExpoClient(
            configuration: ExpoConfiguration(baseURL: FakeExpo.baseURL),
            exchange: { _ in throw HTTP2ClientError(kind: .connectionLost, code: 0, library: "test", message: "reset") }
        )
        #expect(
            try await client.send([Self.message(1)]) == [.retry(reason: "Transport: connectionLost", retryAfter: nil)])
    }

    @Test(
        "receipts: one POST of {ids}; ok delivered, DeviceNotRegistered pruned, MessageRateExceeded retried, other errors failed, missing absent"
    )
    func receipts() async throws {
        let fake = FakeExpo()
        fake.script(
            200,
            #"""
            {"data":{"r-ok":{"status":"ok"},
            "r-gone":{"status":"error","message":"not registered","details":{"error":"DeviceNotRegistered"}},
            "r-big":{"status":"error","message":"too big","details":{"error":"MessageTooBig"}},
            "r-rate":{"status":"error","message":"rate","details":{"error":"MessageRateExceeded"}}}}
            """#)
        let answer = try await Self.client(fake).receipts(ids: ["r-ok", "r-gone", "r-big", "r-rate", "r-later"])
        #expect(
            answer
                == .receipts([
                    "r-ok": .sent(providerMessageID: "r-ok"), "r-gone": .pruned(reason: "DeviceNotRegistered"),
                    "r-big": .failed(reason: "MessageTooBig"),
                    "r-rate": .retry(reason: "MessageRateExceeded", retryAfter: nil),
                ]))
        let request = try #require(fake.received.first)
        #expect(fake.received.count == 1 && fake.refusals.isEmpty)
        let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: [String]]
        #expect(body == ["ids": ["r-ok", "r-gone", "r-big", "r-rate", "r-later"]])
    }

    @Test("a receipts request refused as a whole is unavailable, with its Retry-After")
    func receiptsUnavailable() async throws {
        let fake = FakeExpo()
        fake.script(
            429, #"{"errors":[{"code":"TOO_MANY_REQUESTS","message":"slow"}]}"#,
            headers: [HTTP2Header("retry-after", "3")])
        #expect(
            try await Self.client(fake).receipts(ids: ["a"])
                == .unavailable(reason: "TOO_MANY_REQUESTS", retryAfter: "3"))
    }

    @Test("a retried message keeps its expiry: ttl is what is left of it")
    func remainingTTL() {
        let now = Date(timeIntervalSince1970: 1_000)
        let message = Self.message(1)
        #expect(message.remainingTTL(expiresAt: now.addingTimeInterval(250.5), now: now).ttl == 250)
        #expect(message.remainingTTL(expiresAt: now.addingTimeInterval(-5), now: now).ttl == 0)
        #expect(message.remainingTTL(expiresAt: nil, now: now).ttl == 600)
    }
}
