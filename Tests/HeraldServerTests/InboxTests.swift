import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("Inbox API")
struct InboxTests {
    @Test("lists newest first with counts, pages by cursor, and ends with a null cursor")
    func listAndPage() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            var ids: [String] = []
            for index in 0..<25 {
                ids += try await server.publish(to: ["alice"], title: "n\(index)", key: key)
            }
            try await server.publish(to: ["bob"], key: key)
            let token = try server.token("alice")

            let first = try await server.get("/v1/me/notifications", token: token)
            #expect(first.status == 200)
            let page = first.object
            let items = page["items"] as? [[String: Any]] ?? []
            #expect(items.count == 20)
            #expect(items.first?["id"] as? String == ids.last)
            #expect(items.first?["title"] as? String == "n24")
            #expect(page["unreadCount"] as? Int == 25)
            #expect(page["unseenCount"] as? Int == 25)
            let cursor = try #require(page["nextCursor"] as? String)

            let second = try await server.get("/v1/me/notifications?cursor=\(cursor)", token: token).object
            let rest = second["items"] as? [[String: Any]] ?? []
            #expect(rest.map { $0["id"] as? String } == ids.prefix(5).reversed().map { $0 })
            #expect(second["nextCursor"] is NSNull)

            let small = try await server.get("/v1/me/notifications?limit=3", token: token).object
            #expect((small["items"] as? [Any])?.count == 3)
        }
    }

    @Test("category filter returns only that category; All includes types without one")
    func categoryFilter() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            try await server.publish(to: ["alice"], type: "order.shipped", key: key)
            try await server.publish(to: ["alice"], type: "promo.flash", key: key)
            try await server.publish(to: ["alice"], type: "system.maintenance", key: key)
            let token = try server.token("alice")

            let orders = try await server.get("/v1/me/notifications?category=orders", token: token).object
            let orderTypes = (orders["items"] as? [[String: Any]] ?? []).map { $0["type"] as? String }
            #expect(orderTypes == ["order.shipped"])
            #expect(orders["unreadCount"] as? Int == 3, "counts are over the whole inbox")

            let all = try await server.get("/v1/me/notifications?category=all", token: token).object
            let allItems = all["items"] as? [[String: Any]] ?? []
            #expect(allItems.count == 3)
            #expect(allItems.first?["category"] is NSNull, "system types have no category")
            #expect(allItems.last?["category"] as? String == "orders")
        }
    }

    @Test("INBOX-11 admin rows are filtered server-side from list, counts and detail")
    func adminRowsHidden() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let admin = try await server.publish(to: ["alice"], type: "admin.audit", key: key)
            try await server.publish(to: ["alice"], type: "general.hello", key: key)
            let token = try server.token("alice")
            let page = try await server.get("/v1/me/notifications", token: token).object
            let types = (page["items"] as? [[String: Any]] ?? []).map { $0["type"] as? String }
            #expect(types == ["general.hello"])
            #expect(page["unreadCount"] as? Int == 1)
            expectError(try await server.get("/v1/me/notifications/\(admin[0])", token: token), 404, "not_found")
            let counts = try await server.get("/v1/me/counts", token: token).object
            #expect(counts["unread"] as? Int == 1)
        }
    }

    @Test("DETAIL-02 a bad id, another user's, a deleted one and an admin one all answer the same 404")
    func detailNotFoundIsUniform() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let mine = try await server.publish(to: ["alice"], key: key)[0]
            let theirs = try await server.publish(to: ["bob"], key: key)[0]
            let admin = try await server.publish(to: ["alice"], type: "admin.note", key: key)[0]
            let token = try server.token("alice")
            #expect(try await server.delete("/v1/me/notifications/\(mine)", token: token).status == 204)

            var bodies: Set<String> = []
            for id in ["no-such-id", theirs, mine, admin] {
                let response = try await server.get("/v1/me/notifications/\(id)", token: token)
                expectError(response, 404, "not_found")
                bodies.insert(response.text)
                expectError(
                    try await server.send("POST", "/v1/me/notifications/\(id)/read", token: token), 404, "not_found")
            }
            #expect(bodies.count == 1, "every not-found answer is identical")
            expectError(try await server.delete("/v1/me/notifications/\(theirs)", token: token), 404, "not_found")
            let bob = try server.token("bob")
            #expect(
                try await server.get("/v1/me/notifications/\(theirs)", token: bob).status == 200, "bob's row untouched")
        }
    }

    @Test("detail carries the rich content with sanitized html")
    func detailWithRichContent() async throws {
        try await withServer { server in
            let extra =
                #","detail":{"heroImageURL":"https://img.example/a.png","html":"<p onclick=\"x()\">Hi<script>alert(1)</script></p>","actionLabel":"Track","actionPath":"/orders/42"},"data":{"orderId":"42"}"#
            let id = try await server.publish(to: ["alice"], extra: extra)[0]
            let token = try server.token("alice")
            let item = try await server.get("/v1/me/notifications/\(id)", token: token).object
            let detail = item["detail"] as? [String: Any] ?? [:]
            #expect(item["hasDetail"] as? Bool == true)
            #expect(detail["heroImageURL"] as? String == "https://img.example/a.png")
            #expect(detail["actionPath"] as? String == "/orders/42")
            let html = detail["html"] as? String ?? ""
            #expect(html.contains("Hi"))
            #expect(!html.contains("script") && !html.contains("onclick") && !html.contains("alert"))
            #expect((item["data"] as? [String: String])?["orderId"] == "42")
        }
    }

    @Test("read is idempotent, seen clears the badge but keeps unread dots, delete is soft and idempotent")
    func readSeenDelete() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let ids = try await server.publish(to: ["alice"], key: key) + server.publish(to: ["alice"], key: key)
            let token = try server.token("alice")

            let read = try await server.send("POST", "/v1/me/notifications/\(ids[0])/read", token: token)
            #expect(read.status == 200)
            let readAt = read.object["readAt"] as? String
            #expect(readAt != nil)
            let again = try await server.send("POST", "/v1/me/notifications/\(ids[0])/read", token: token)
            #expect(again.object["readAt"] as? String == readAt, "a second read keeps the first time")
            var counts = try await server.get("/v1/me/counts", token: token).object
            #expect(counts["unread"] as? Int == 1)
            #expect(counts["unseen"] as? Int == 1)

            let seen = try await server.send("POST", "/v1/me/notifications/seen", token: token)
            #expect(seen.status == 200)
            #expect(seen.object["unseen"] as? Int == 0)
            counts = try await server.get("/v1/me/counts", token: token).object
            #expect(counts["unseen"] as? Int == 0)
            #expect(counts["unread"] as? Int == 1, "unread dots stay after seen")
            let list = try await server.get("/v1/me/notifications", token: token).object
            let unreadRow = (list["items"] as? [[String: Any]] ?? []).first { $0["id"] as? String == ids[1] }
            #expect(unreadRow?["readAt"] is NSNull)

            #expect(try await server.delete("/v1/me/notifications/\(ids[1])", token: token).status == 204)
            #expect(try await server.delete("/v1/me/notifications/\(ids[1])", token: token).status == 204)
            counts = try await server.get("/v1/me/counts", token: token).object
            #expect(counts["unread"] as? Int == 0)
            let remaining = try await server.get("/v1/me/notifications", token: token).object
            #expect((remaining["items"] as? [Any])?.count == 1)
        }
    }

    @Test("bad list parameters answer 400 with the error shape")
    func badParameters() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            for limit in ["0", "101", "abc", "-1", "1.5"] {
                expectError(
                    try await server.get("/v1/me/notifications?limit=\(limit)", token: token), 400, "invalid_limit")
            }
            for cursor in ["zzz", "AAAA", "%00", String(repeating: "a", count: 500)] {
                expectError(
                    try await server.get("/v1/me/notifications?cursor=\(cursor)", token: token), 400, "invalid_cursor")
            }
            expectError(
                try await server.get("/v1/me/notifications?category=weather", token: token), 400, "unknown_category")
        }
    }

    @Test("every app call without a valid token answers 401 unauthenticated")
    func unauthenticated() async throws {
        try await withServer { server in
            let calls: [(String, String)] = [
                ("GET", "/v1/me/notifications"), ("GET", "/v1/me/notifications/x"),
                ("POST", "/v1/me/notifications/x/read"), ("POST", "/v1/me/notifications/seen"),
                ("DELETE", "/v1/me/notifications/x"), ("GET", "/v1/me/counts"), ("GET", "/v1/me/stream"),
                ("GET", "/v1/me/preferences"), ("PATCH", "/v1/me/preferences"), ("POST", "/v1/me/permission"),
                ("POST", "/v1/me/permission/sync"), ("POST", "/v1/me/devices"), ("DELETE", "/v1/me/devices/x"),
                ("POST", "/v1/me/events"),
            ]
            let expired = try TestTokens.sign(sub: "alice", exp: Date().addingTimeInterval(-120))
            let wrongSecret = try TestTokens.sign(sub: "alice", exp: Date().addingTimeInterval(600), secret: "other")
            let headers: [[(String, String)]] = [
                [], [("Authorization", "Bearer not-a-jwt")], [("Authorization", "Bearer \(expired)")],
                [("Authorization", "Bearer \(wrongSecret)")], [("Authorization", "Basic YWxpY2U6eA==")],
            ]
            for (method, path) in calls {
                for header in headers {
                    let response = try await server.client.request(
                        method, path, headers: header, body: Array("{}".utf8))
                    expectError(response, 401, "unauthenticated")
                }
            }
        }
    }

    @Test("PREFS-07 the inbox still shows types whose push is disabled")
    func preferencesAffectPushOnly() async throws {
        try await withServer { server in
            let token = try server.token("alice")
            let patch = #"{"globalEnabled":false,"categories":{"promotions":false},"disabledTypes":["order.shipped"]}"#
            #expect(try await server.send("PATCH", "/v1/me/preferences", json: patch, token: token).status == 200)
            let key = try await server.apiKey()
            try await server.publish(to: ["alice"], type: "promo.flash", key: key)
            try await server.publish(to: ["alice"], type: "order.shipped", key: key)
            let page = try await server.get("/v1/me/notifications", token: token).object
            let types = Set((page["items"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String })
            #expect(types == ["promo.flash", "order.shipped"])
        }
    }
}
