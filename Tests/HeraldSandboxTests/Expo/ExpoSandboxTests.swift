import Foundation
import HeraldSandbox
import Testing

@Suite("Expo look-alike")
struct ExpoSandboxTests {
    static let accessToken = "sandbox-access-token"
    static func token(_ index: Int) -> String { "ExponentPushToken[device-\(index)]" }

    static func request(
        _ body: String, path: String = "/--/api/v2/push/send", bearer: String? = accessToken,
        contentType: String = "application/json"
    ) -> HTTP2Request {
        var headers = [HTTP2Header("content-type", contentType), HTTP2Header("accept-encoding", "gzip, deflate")]
        if let bearer { headers.append(HTTP2Header("authorization", "Bearer \(bearer)")) }
        return HTTP2Request(method: "POST", path: path, headers: headers, body: Array(body.utf8))
    }

    static func message(_ index: Int, extra: String = "") -> String {
        #"{"to":"\#(token(index))","title":"Shipped","body":"On its way","data":{"id":"n\#(index)"},"priority":"high","ttl":600,"badge":1,"sound":"default"\#(extra)}"#
    }

    /// A message to one token with only the field `field` besides `to`.
    static func only(_ field: String) -> String {
        #"{"to":"\#(token(1))",\#(field)}"#
    }

    static func object(_ response: HTTP2Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// The first request error's code.
    static func errorCode(_ response: HTTP2Response) throws -> String? {
        ((try object(response))["errors"] as? [[String: Any]])?.first?["code"] as? String
    }

    static func tickets(_ response: HTTP2Response) throws -> [[String: Any]] {
        try #require((try object(response))["data"] as? [[String: Any]])
    }

    @Test("a batch gets one ok ticket per message, in order, and every message is recorded as sent")
    func batch() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        let body = "[" + (0..<3).map { Self.message($0) }.joined(separator: ",") + "]"
        let response = await sandbox.respond(to: Self.request(body))
        #expect(response.status == 200)
        let tickets = try Self.tickets(response)
        #expect(tickets.map { $0["status"] as? String } == ["ok", "ok", "ok"])
        #expect(sandbox.accepted.map(\.ticketID) == tickets.compactMap { $0["id"] as? String })
        #expect(sandbox.accepted.map(\.to) == (0..<3).map(Self.token) && sandbox.sendSizes == [3])
        let first = try #require(sandbox.accepted.first)
        #expect(first.string("title") == "Shipped" && first.number("ttl") == 600 && first.data == ["id": "n0"])
    }

    @Test("a single message object, and a message to an array of tokens (a ticket per token)")
    func singleAndArray() async throws {
        let sandbox = ExpoSandbox(accessToken: nil)
        #expect(try Self.tickets(await sandbox.respond(to: Self.request(Self.message(1)))).count == 1)
        let fanned = #"{"to":["\#(Self.token(2))","\#(Self.token(3))"],"body":"hi"}"#
        #expect(try Self.tickets(await sandbox.respond(to: Self.request(fanned))).count == 2)
        #expect(sandbox.accepted.map(\.to) == [Self.token(1), Self.token(2), Self.token(3)])
    }

    @Test("more than 100 notifications in one request: 400 PUSH_TOO_MANY_NOTIFICATIONS, nothing accepted")
    func tooMany() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        let body = "[" + (0..<101).map { Self.message($0) }.joined(separator: ",") + "]"
        let response = await sandbox.respond(to: Self.request(body))
        #expect(try response.status == 400 && Self.errorCode(response) == "PUSH_TOO_MANY_NOTIFICATIONS")
        #expect(sandbox.accepted.isEmpty)
    }

    @Test("strict shapes: bad tokens, wrong field types, unknown fields and bad priorities are VALIDATION_ERROR")
    func validation() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        let bad = [
            #"{"to":"abc","body":"x"}"#, #"{"to":"ExponentPushToken[]","body":"x"}"#, #"{"body":"x"}"#,
            #"{"to":[],"body":"x"}"#, Self.only(#""data":"text""#),
            Self.only(#""priority":"urgent""#), Self.only(#""badge":-1"#),
            Self.only(#""ttl":"600""#), Self.only(#""mutableContent":1"#),
            Self.message(1, extra: #","colour":"red""#), "[1]", "not json", "[]",
        ]
        for body in bad {
            let response = await sandbox.respond(to: Self.request(body))
            #expect(try response.status == 400 && Self.errorCode(response) == "VALIDATION_ERROR", "\(body)")
        }
        let wrongType = await sandbox.respond(to: Self.request(Self.message(1), contentType: "text/plain"))
        #expect(wrongType.status == 400)
        let allFields = Self.message(
            1, extra: #","subtitle":"s","channelId":"c","categoryId":"k","mutableContent":true,"expiration":1900000000"#
        )
        #expect(await sandbox.respond(to: Self.request(allFields)).status == 200)
        #expect(sandbox.accepted.count == 1)
    }

    @Test("with an access token, a missing or wrong bearer gets 401 UNAUTHORIZED on send and getReceipts")
    func accessToken() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        for bearer in [nil, "wrong"] {
            let send = await sandbox.respond(to: Self.request(Self.message(1), bearer: bearer))
            #expect(try send.status == 401 && Self.errorCode(send) == "UNAUTHORIZED")
            let receipts = await sandbox.respond(
                to: Self.request(#"{"ids":["x"]}"#, path: "/--/api/v2/push/getReceipts", bearer: bearer))
            #expect(receipts.status == 401)
        }
        #expect(sandbox.accepted.isEmpty && sandbox.statusCounts[401] == 4)
    }

    @Test("ticket faults: DeviceNotRegistered and MessageRateExceeded tickets beside ok ones; times counts down")
    func ticketFaults() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        sandbox.setFault(.deviceNotRegisteredTicket, for: Self.token(0))
        sandbox.setFault(.messageRateExceeded, for: Self.token(1), times: 1)
        let body = "[" + (0..<3).map { Self.message($0) }.joined(separator: ",") + "]"
        let tickets = try Self.tickets(await sandbox.respond(to: Self.request(body)))
        #expect(tickets.map { $0["status"] as? String } == ["error", "error", "ok"])
        #expect((tickets[0]["details"] as? [String: Any])?["error"] as? String == "DeviceNotRegistered")
        #expect((tickets[0]["details"] as? [String: Any])?["expoPushToken"] as? String == Self.token(0))
        #expect((tickets[1]["details"] as? [String: Any])?["error"] as? String == "MessageRateExceeded")
        #expect(sandbox.accepted.map(\.to) == [Self.token(2)])
        let again = try Self.tickets(await sandbox.respond(to: Self.request(Self.message(1))))
        #expect(again.first?["status"] as? String == "ok", "the rate fault was for one request")
    }

    @Test("request faults: 429 with Retry-After and 503 fail the whole request; then it is accepted")
    func requestFaults() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        sandbox.setFault(.tooManyRequests(retryAfter: 4), for: Self.token(1), times: 1)
        let body = "[" + Self.message(0) + "," + Self.message(1) + "]"
        let limited = await sandbox.respond(to: Self.request(body))
        #expect(limited.status == 429 && limited.header("retry-after") == "4")
        #expect(try Self.errorCode(limited) == "TOO_MANY_REQUESTS")
        sandbox.setFault(.unavailable, for: Self.token(0), times: 1)
        #expect(await sandbox.respond(to: Self.request(body)).status == 503)
        #expect(sandbox.accepted.isEmpty)
        #expect(await sandbox.respond(to: Self.request(body)).status == 200)
        #expect(sandbox.accepted.count == 2 && sandbox.sendSizes == [2])
    }

    @Test("getReceipts: ok receipts, a DeviceNotRegistered receipt for its fault, unknown ids left out")
    func receipts() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        sandbox.setFault(.deviceNotRegisteredReceipt, for: Self.token(1))
        let body = "[" + Self.message(0) + "," + Self.message(1) + "]"
        let tickets = try Self.tickets(await sandbox.respond(to: Self.request(body)))
        #expect(tickets.map { $0["status"] as? String } == ["ok", "ok"], "the ticket is ok, the receipt is not")
        let ids = tickets.compactMap { $0["id"] as? String }
        let request = Self.request(
            #"{"ids":["\#(ids[0])","\#(ids[1])","unknown"]}"#, path: "/--/api/v2/push/getReceipts")
        let response = await sandbox.respond(to: request)
        #expect(response.status == 200)
        let data = try #require((try Self.object(response))["data"] as? [String: [String: Any]])
        #expect(Set(data.keys) == Set(ids))
        #expect(data[ids[0]]?["status"] as? String == "ok")
        #expect(data[ids[1]]?["status"] as? String == "error")
        #expect((data[ids[1]]?["details"] as? [String: Any])?["error"] as? String == "DeviceNotRegistered")
    }

    @Test("receipts are kept a day, as Expo's, then forgotten: memory stays bounded and late pollers see none")
    func receiptsExpire() async throws {
        let now = TestNow(Date(timeIntervalSince1970: 1_800_000_000))
        let sandbox = ExpoSandbox(accessToken: nil, clock: { now.value.withLock { $0 } })
        func send(_ index: Int) async throws -> String {
            try #require(
                try Self.tickets(await sandbox.respond(to: Self.request(Self.message(index)))).first?["id"] as? String)
        }
        func receipts(_ ids: [String]) async throws -> Set<String> {
            let body = #"{"ids":["# + ids.map { #""\#($0)""# }.joined(separator: ",") + "]}"
            let response = await sandbox.respond(to: Self.request(body, path: "/--/api/v2/push/getReceipts"))
            return Set(try #require((try Self.object(response))["data"] as? [String: Any]).keys)
        }
        let first = try await send(0)
        now.value.withLock { $0 += 24 * 3600 - 1 }
        let second = try await send(1)
        #expect(try await receipts([first, second]) == [first, second], "both within a day")
        now.value.withLock { $0 += 1 }
        #expect(try await receipts([first, second]) == [second], "the first is a day old")
        now.value.withLock { $0 += 24 * 3600 }
        _ = try await send(2)
        #expect(sandbox.storedReceiptCount == 1, "expired receipts are dropped, not kept")
    }

    @Test("getReceipts refuses more than 1,000 ids and bodies that are not {ids}")
    func receiptLimits() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        let ids = (0..<1_001).map { #""id-\#($0)""# }.joined(separator: ",")
        let tooMany = await sandbox.respond(
            to: Self.request(#"{"ids":[\#(ids)]}"#, path: "/--/api/v2/push/getReceipts"))
        #expect(try tooMany.status == 400 && Self.errorCode(tooMany) == "PUSH_TOO_MANY_RECEIPTS")
        let wrong = await sandbox.respond(to: Self.request(#"{"ids":"x"}"#, path: "/--/api/v2/push/getReceipts"))
        #expect(try wrong.status == 400 && Self.errorCode(wrong) == "VALIDATION_ERROR")
    }

    @Test("admin: faults set, cleared with none and DELETE; accepted lists messages, send sizes and counts")
    func admin() async throws {
        let sandbox = ExpoSandbox(accessToken: Self.accessToken)
        func admin(_ method: String, _ path: String, _ body: String = "") async -> HTTP2Response {
            await sandbox.respond(to: HTTP2Request(method: method, path: path, body: Array(body.utf8)))
        }
        let set = await admin(
            "POST", "/admin/expo/faults", #"{"token":"\#(Self.token(1))","fault":"tooManyRequests","retryAfter":2}"#)
        #expect(set.status == 204)
        #expect(await sandbox.respond(to: Self.request(Self.message(1))).status == 429)
        _ = await admin("POST", "/admin/expo/faults", #"{"token":"\#(Self.token(1))","fault":"none"}"#)
        #expect(await sandbox.respond(to: Self.request(Self.message(1))).status == 200)
        _ = await admin("POST", "/admin/expo/faults", #"{"token":"\#(Self.token(1))","fault":"unavailable"}"#)
        #expect(await admin("DELETE", "/admin/expo/faults").status == 204)
        #expect(await sandbox.respond(to: Self.request(Self.message(1))).status == 200)
        #expect(await admin("POST", "/admin/expo/faults", #"{"token":"x","fault":"fire"}"#).status == 400)
        #expect(await admin("GET", "/admin/expo/nothing").status == 404)

        let listed = try Self.object(await admin("GET", "/admin/expo/accepted"))
        let accepted = try #require(listed["accepted"] as? [[String: Any]])
        #expect(accepted.count == 2 && accepted.first?["to"] as? String == Self.token(1))
        #expect((accepted.first?["message"] as? [String: Any])?["title"] as? String == "Shipped")
        #expect(listed["sendSizes"] as? [Int] == [1, 1])
        #expect((listed["statusCounts"] as? [String: Int])?["429"] == 1)
    }
}
