import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("Publisher API")
struct PublisherTests {
    @Test("publishes to 1,000 recipients at once, answering the ids in recipient order")
    func thousandRecipients() async throws {
        try await withServer { server in
            let recipients = (0..<1000).map { "user-\($0)" }
            let ids = try await server.publish(to: recipients)
            #expect(ids.count == 1000)
            #expect(Set(ids).count == 1000)
            let page = try await server.get("/v1/me/notifications", token: try server.token("user-999")).object
            #expect((page["items"] as? [[String: Any]])?.first?["id"] as? String == ids[999])
        }
    }

    @Test(
        "Idempotency-Key: the same key within 24 h answers the first result and creates nothing; a different body is 422"
    )
    func idempotency() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let body = #"{"recipients":["alice","bob"],"type":"order.shipped","title":"Shipped","body":"Soon"}"#
            let headers = [("Idempotency-Key", "order-42-shipped")]
            let first = try await server.send("POST", "/v1/notifications", json: body, token: key, headers: headers)
            #expect(first.status == 202)
            let reordered = #"{"type":"order.shipped","title":"Shipped","body":"Soon","recipients":["alice","bob"]}"#
            let second = try await server.send(
                "POST", "/v1/notifications", json: reordered, token: key, headers: headers)
            #expect(second.status == 202)
            let firstIDs = try first.decode(PublishAnswer.self).notifications.map(\.id)
            let secondIDs = try second.decode(PublishAnswer.self).notifications.map(\.id)
            #expect(secondIDs == firstIDs, "the replay answers the first result")
            #expect(second.header("Idempotent-Replayed") == "true")
            let counts = try await server.get("/v1/me/counts", token: try server.token("alice")).object
            #expect(counts["unread"] as? Int == 1, "the replay created nothing")

            let changed = #"{"recipients":["alice"],"type":"order.shipped","title":"Other","body":"Soon"}"#
            expectError(
                try await server.send("POST", "/v1/notifications", json: changed, token: key, headers: headers), 422,
                "idempotency_key_reused")
            let otherKey = try await server.apiKey()
            #expect(
                try await server.send("POST", "/v1/notifications", json: body, token: otherKey, headers: headers).status
                    == 202, "keys are per publisher key")
            expectError(
                try await server.send(
                    "POST", "/v1/notifications", json: body, token: key,
                    headers: [("Idempotency-Key", String(repeating: "k", count: 256))]), 400, "invalid_idempotency_key")
        }
    }

    @Test("bad publish requests answer 400 with the error shape and write nothing, not even half")
    func badRequests() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let many = (0..<1001).map { "\"u\($0)\"" }.joined(separator: ",")
            let long = String(repeating: "x", count: 201)
            let bad: [String] = [
                "{", "[]", #"{"recipients":"alice","type":"order.x","title":"t","body":"b"}"#,
                #"{"recipients":[],"type":"order.x","title":"t","body":"b"}"#,
                #"{"recipients":[\#(many)],"type":"order.x","title":"t","body":"b"}"#,
                #"{"recipients":["alice","alice"],"type":"order.x","title":"t","body":"b"}"#,
                #"{"recipients":["alice","bad id!"],"type":"order.x","title":"t","body":"b"}"#,
                #"{"recipients":["alice"],"type":"Order Shipped","title":"t","body":"b"}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"\#(long)","body":"b"}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t"}"#,
                #"{"recipients":["alice"],"type":"order.x","title":5,"body":"b"}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"b","data":{"k":1}}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"b","deepLink":"not a link"}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"b","detail":{"heroImageURL":"http://insecure/x.png"}}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"b","push":{"send":true,"ttlSeconds":-1}}"#,
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"b","push":{"send":true,"priority":"urgent"}}"#,
            ]
            for json in bad {
                let response = try await server.send("POST", "/v1/notifications", json: json, token: key)
                #expect(response.status == 400, "\(json.prefix(80)) answered \(response.status): \(response.text)")
                let error = response.object["error"] as? [String: Any]
                #expect(error?["code"] is String && error?["message"] is String)
            }
            let counts = try await server.get("/v1/me/counts", token: try server.token("alice")).object
            #expect(counts["unread"] as? Int == 0)
            expectError(
                try await server.send(
                    "POST", "/v1/notifications", json: #"{"recipients":["alice"],"type":"a","title":"t","body":"b"}"#),
                401, "unauthenticated")
            expectError(
                try await server.send(
                    "POST", "/v1/notifications", json: #"{"recipients":["alice"],"type":"a","title":"t","body":"b"}"#,
                    token: "hk_fake_key"), 401, "unauthenticated")
        }
    }

    @Test("rich HTML is reduced to a safe subset before it is stored")
    func htmlSanitized() async throws {
        try await withServer { server in
            let html =
                #"<h1 style=\"x\">Sale</h1><style>p{}</style><a href=\"javascript:alert(1)\">x</a><img src=\"data:image/png;base64,AA\" onerror=\"x()\"><a href=\"https://ok.example/\">ok</a>"#
            let id = try await server.publish(to: ["alice"], extra: #","detail":{"html":"\#(html)"}"#)[0]
            let detail =
                try await server.get("/v1/me/notifications/\(id)", token: try server.token("alice")).object["detail"]
                as? [String: Any]
            let stored = detail?["html"] as? String ?? ""
            #expect(stored.contains("Sale") && stored.contains("https://ok.example/"))
            for banned in ["<style", "javascript:", "data:", "onerror", "style="] {
                #expect(!stored.lowercased().contains(banned), "\(banned) survived: \(stored)")
            }
        }
    }
}
