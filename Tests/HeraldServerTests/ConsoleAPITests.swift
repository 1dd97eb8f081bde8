import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// The publisher calls the console is built on, over real HTTP: previews, the notification list
/// and one notification, a user's preferences and deliveries, keys, the app config's ETag and
/// the overview figures.
@Suite("Console API")
struct ConsoleAPITests {
    static func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }

    @Test("a preview shows the push cut, both banners, the inbox row and the detail page with sanitized HTML")
    func richPreview() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let put = try await server.send(
                "PUT", "/v1/app-config", json: #"{"deepLinks":{"allowedPrefixes":["myapp://orders/"]}}"#, token: key)
            #expect(put.status == 200, "\(put.text)")
            let longBody = String(repeating: "word ", count: 40)
            let draft: [String: Any] = [
                "type": "order.shipped", "title": "Your order shipped", "body": longBody,
                "data": ["orderId": "123"], "deepLink": "myapp://promo/1",
                "detail": [
                    "heroImageURL": "https://cdn.example/hero.png",
                    "html": #"<p onclick="alert(1)">Hi <script>alert(2)</script><b>there</b></p>"#,
                    "actionPath": "/orders/123",
                ],
                "push": ["send": true],
            ]
            let response = try await server.send(
                "POST", "/v1/previews",
                json: String(decoding: try JSONSerialization.data(withJSONObject: draft), as: UTF8.self),
                token: key)
            #expect(response.status == 200, "\(response.text)")
            let preview = response.object
            #expect(preview["chip"] as? String == "Orders")
            #expect(preview["pushes"] as? Bool == true)
            let push = Self.object(preview["push"])
            #expect(push["bodyCut"] as? Bool == true)
            #expect(push["titleCut"] as? Bool == false)
            let cutBody = try #require(push["body"] as? String)
            #expect(cutBody.count <= 150 && cutBody.hasSuffix("…"), "\(cutBody)")
            #expect(Self.object(preview["ios"])["body"] as? String == cutBody, "the APNs alert carries the cut body")
            #expect(Self.object(preview["android"])["body"] as? String == cutBody, "and so does FCM's notification")

            let row = Self.object(preview["inboxRow"])
            #expect(row["unreadDot"] as? Bool == true)
            #expect(row["chevron"] as? Bool == true)
            #expect(
                Self.object(row["destination"])["kind"] as? String == "detail", "rich content opens the detail page")

            let page = Self.object(preview["detailPage"])
            #expect(page["layout"] as? String == "hero")
            #expect(page["badge"] as? String == "New")
            #expect(page["plain"] as? Bool == false)
            let html = try #require(page["html"] as? String)
            #expect(!html.contains("script") && !html.contains("onclick") && !html.contains("alert(2)"), "\(html)")
            #expect(html.contains("<b>there</b>"))
            #expect(Self.object(page["action"])["label"] as? String == "View Details")

            let deepLink = Self.object(preview["deepLink"])
            #expect(deepLink["allowed"] as? Bool == false)
            #expect((deepLink["message"] as? String)?.contains("myapp://orders/") == true)
            let payloads = Self.object(preview["payloads"])
            #expect(Self.object(payloads["apns"])["aps"] != nil && payloads["fcm"] != nil && payloads["expo"] != nil)
        }
    }

    @Test("a plain general notification previews with no chevron, the compact layout and the push text")
    func plainPreview() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let response = try await server.send(
                "POST", "/v1/previews", json: #"{"type":"general","title":"Hello","body":"Plain text"}"#, token: key)
            #expect(response.status == 200, "\(response.text)")
            let preview = response.object
            #expect(preview["chip"] == nil, "general is under All only")
            #expect(preview["pushes"] as? Bool == false)
            let row = Self.object(preview["inboxRow"])
            #expect(row["chevron"] as? Bool == false, "INBOX-09: a row without destination")
            let page = Self.object(preview["detailPage"])
            #expect(page["layout"] as? String == "compact")
            #expect(page["plain"] as? Bool == true)
            #expect(page["text"] as? String == "Plain text")
            #expect(page["action"] == nil)

            let hidden = try await server.send(
                "POST", "/v1/previews", json: #"{"type":"admin.audit","title":"x","body":"y"}"#, token: key)
            #expect(hidden.object["hidden"] as? Bool == true)
            #expect(hidden.object["inboxRow"] == nil && hidden.object["detailPage"] == nil)
        }
    }

    @Test("bad input to a preview or a publish is a 400 that names the field")
    func fieldErrors() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let hero = try await server.send(
                "POST", "/v1/previews",
                json:
                    #"{"type":"general","title":"Hi","body":"","detail":{"heroImageURL":"http://plain.example/x.png"}}"#,
                token: key)
            expectError(hero, 400, "invalid")
            #expect(Self.object(hero.object["error"])["field"] as? String == "detail.heroImageURL", "\(hero.text)")
            let title = try await server.send(
                "POST", "/v1/notifications", json: #"{"recipients":["a"],"type":"general","title":"","body":""}"#,
                token: key)
            #expect(Self.object(title.object["error"])["field"] as? String == "title", "\(title.text)")
            let shape = try await server.send(
                "POST", "/v1/previews", json: #"{"type":"general","title":"Hi","body":"","push":{"send":"yes"}}"#,
                token: key)
            expectError(shape, 400, "invalid_body")
            #expect(Self.object(shape.object["error"])["field"] as? String == "push.send", "\(shape.text)")
            let anonymous = try await server.send(
                "POST", "/v1/previews", json: #"{"type":"general","title":"a","body":""}"#)
            #expect(anonymous.status == 401)
        }
    }

    @Test("the notification list is newest first and filters by user, type, delivery status and time")
    func notificationList() async throws {
        let clock = ManualClock()
        try await withServer(now: { clock.now }) { server in
            let key = try await server.apiKey()
            let first = try await server.publish(to: ["alice"], type: "order.shipped", key: key)
            clock.advance(by: 60)
            let second = try await server.publish(
                to: ["alice", "bob"], type: "promo.sale", extra: #","push":{"send":true}"#, key: key)
            clock.advance(by: 60)
            let third = try await server.publish(to: ["bob"], type: "order_x.made", key: key)

            func ids(_ query: String) async throws -> [String] {
                let response = try await server.get("/v1/notifications\(query)", token: key)
                #expect(response.status == 200, "\(response.text)")
                return (response.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(try await ids("") == third + second.reversed() + first)
            #expect(try await ids("?userId=alice") == [second[0], first[0]])
            #expect(try await ids("?type=order") == first, "a whole-segment prefix: order_x is another type")
            #expect(try await ids("?type=promo.sale&userId=bob") == [second[1]])
            #expect(try await ids("?status=skipped") == second.reversed(), "no device: skipped no_device")
            let from = Date(timeIntervalSince1970: 1_900_000_030).formatted(.iso8601)
            let until = Date(timeIntervalSince1970: 1_900_000_090).formatted(.iso8601)
            #expect(try await ids("?from=\(from)&until=\(until)") == second.reversed())

            let page = try await server.get("/v1/notifications?limit=2", token: key)
            let cursor = try #require(page.object["nextCursor"] as? String)
            #expect(try await ids("?limit=2&cursor=\(cursor)") == [second[0], first[0]])
            let items = try #require(page.object["items"] as? [[String: Any]])
            #expect(Self.object(items[1]["deliveries"])["skipped"] as? Int == 1)
            #expect(items[0]["userId"] as? String == "bob")

            let bad = try await server.get("/v1/notifications?status=lost", token: key)
            expectError(bad, 400, "invalid_status")
            #expect(Self.object(bad.object["error"])["field"] as? String == "status")
            expectError(try await server.get("/v1/notifications?from=yesterday", token: key), 400, "invalid_time")
            expectError(try await server.get("/v1/notifications?userId=a%20b", token: key), 400, "invalid")

            let one = try await server.get("/v1/notifications/\(second[0])", token: key)
            #expect(one.status == 200)
            #expect(one.object["userId"] as? String == "alice")
            #expect(Self.object(one.object["push"])["send"] as? Bool == true)
            expectError(try await server.get("/v1/notifications/nope", token: key), 404, "not_found")
        }
    }

    @Test("a user's preferences and recent deliveries, with the device's active state")
    func userReads() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let alice = try server.token("alice")
            let device = DeviceRegistration(
                token: "fcm-token-for-the-pixel-98765432", provider: .fcm, platform: .android)
            #expect(try await server.send("POST", "/v1/me/devices", body: device, token: alice).status == 200)
            #expect(
                try await server.send("PATCH", "/v1/me/preferences", json: #"{"globalEnabled":false}"#, token: alice)
                    .status == 200)
            let ids = try await server.publish(to: ["alice"], extra: #","push":{"send":true}"#, key: key)

            let preferences = try await server.get("/v1/users/alice/preferences", token: key)
            #expect(preferences.status == 200)
            #expect(preferences.object["globalEnabled"] as? Bool == false)
            let deliveries = try await server.get("/v1/users/alice/deliveries", token: key)
            let items = try #require(deliveries.object["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["notificationId"] as? String == ids[0])
            #expect(items.first?["status"] as? String == "skipped")
            #expect(items.first?["deviceActive"] as? Bool == true)
            #expect(items.first?["providerStatus"] is NSNull, "never sent: no provider status, spelled out as null")
            #expect(try await server.get("/v1/users/bob/deliveries", token: key).object["items"] as? [Any] != nil)
            expectError(try await server.get("/v1/users/a%20b/preferences", token: key), 400, "invalid")
            #expect(
                try await server.get("/v1/users/alice/preferences", token: alice).status == 401,
                "a user token is no key")
        }
    }

    @Test("keys are listed, created with their secret once, and revoked")
    func keys() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let created = try await server.send("POST", "/v1/keys", json: #"{"name":"ci"}"#, token: key)
            #expect(created.status == 201, "\(created.text)")
            let secret = try #require(created.object["key"] as? String)
            let id = try #require(created.object["id"] as? String)
            #expect(try await server.get("/v1/keys", token: secret).status == 200, "the new key works")
            let list = try await server.get("/v1/keys", token: key)
            let items = try #require(list.object["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["test", "ci"])
            #expect(items.allSatisfy { $0["key"] == nil }, "a secret is shown once")
            expectError(
                try await server.send("POST", "/v1/keys", json: #"{"name":" "}"#, token: key), 400, "invalid_name")
            #expect(try await server.delete("/v1/keys/\(id)", token: key).status == 204)
            #expect(try await server.get("/v1/keys", token: secret).status == 401, "revoked")
            expectError(try await server.delete("/v1/keys/key_nope", token: key), 404, "not_found")
        }
    }

    @Test("the app config's ETag: a write over a version someone else replaced is a 412, never an overwrite")
    func appConfigConflict() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let empty = try await server.get("/v1/app-config/document", token: key)
            #expect(empty.status == 200)
            #expect(empty.header("ETag") == #""0""#)
            let one = #"{"deepLinks":{"allowedPrefixes":["myapp://a/"]}}"#
            let two = #"{"deepLinks":{"allowedPrefixes":["myapp://b/"]}}"#
            let first = try await server.send(
                "PUT", "/v1/app-config", json: one, token: key, headers: [("If-Match", #""0""#)])
            #expect(first.status == 200, "\(first.text)")
            #expect(first.header("ETag") == #""1""#)
            let stale = try await server.send(
                "PUT", "/v1/app-config", json: two, token: key, headers: [("If-Match", #""0""#)])
            expectError(stale, 412, "app_config_conflict")
            #expect(stale.header("ETag") == #""1""#)
            let weak = try await server.send(
                "PUT", "/v1/app-config", json: two, token: key, headers: [("If-Match", #"W/"1""#)])
            expectError(weak, 412, "app_config_conflict")
            let read = try await server.get("/v1/app-config/document", token: key)
            #expect(read.header("ETag") == #""1""#)
            #expect(read.text.contains("myapp://a/"), "the stale write stored nothing")
            let any = try await server.send(
                "PUT", "/v1/app-config", json: two, token: key, headers: [("If-Match", "*")])
            #expect(any.header("ETag") == #""2""#)
            let bare = try await server.send("PUT", "/v1/app-config", json: one, token: key)
            #expect(bare.header("ETag") == #""3""#, "without If-Match the write stands, as before")
            #expect(try await server.get("/v1/app-config/document").status == 401)
        }
    }

    @Test("the overview counts deliveries per provider and status, devices, users and streams")
    func stats() async throws {
        let clock = ManualClock()
        try await withServer(now: { clock.now }) { server in
            let key = try await server.apiKey()
            let alice = try server.token("alice")
            let device = DeviceRegistration(
                token: "fcm-token-for-the-pixel-98765432", provider: .fcm, platform: .android)
            #expect(try await server.send("POST", "/v1/me/devices", body: device, token: alice).status == 200)
            try await server.publish(to: ["alice", "bob"], extra: #","push":{"send":true}"#, key: key)
            clock.advance(by: 7200)
            try await server.publish(to: ["alice"], extra: #","push":{"send":true}"#, key: key)

            let stats = try await server.get("/v1/stats", token: key)
            #expect(stats.status == 200, "\(stats.text)")
            #expect(stats.object["users"] as? Int == 2)
            let devices = try #require(stats.object["devices"] as? [[String: Any]])
            #expect(devices.first { $0["provider"] as? String == "fcm" }?["active"] as? Int == 1)
            #expect(devices.count == 3)
            let windows = Self.object(stats.object["deliveries"])
            let hour = try #require(Self.object(windows["lastHour"])["buckets"] as? [[String: Any]])
            #expect(hour.count == 1, "only the newest publish is in the last hour: \(hour)")
            #expect(hour.first?["provider"] as? String == "fcm" && hour.first?["status"] as? String == "queued")
            let day = try #require(Self.object(windows["lastDay"])["buckets"] as? [[String: Any]])
            #expect(day.map { $0["count"] as? Int ?? 0 }.reduce(0, +) == 3, "two for the first publish, one now")
            #expect(stats.object["liveStreams"] as? Int == 0)
        }
    }
}
