import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// Messages and attention (issue 16, points 1, 2, 3, 4 and 6) over real sockets, through the APNs
/// look-alike, on a clock the test moves: a publish as a message with its funnel, scheduled sends,
/// cancel, source mutes, frequency caps and digests.
@Suite("Messages: funnels, schedules, cancels, source mutes, caps and digests", .serialized)
struct MessageTests {
    /// `POST /v1/notifications` with `body` (a whole JSON object); the answer's JSON.
    static func publish(_ fixture: PushFixture, _ body: String) async throws -> [String: Any] {
        let response = try await fixture.server.send("POST", "/v1/notifications", json: body, token: fixture.apiKey)
        try #require(response.status == 202, "\(response.text)")
        return response.object
    }

    static func notificationIDs(_ answer: [String: Any]) -> [String] {
        (answer["notifications"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    static func message(_ fixture: PushFixture, _ id: String) async throws -> [String: Any] {
        let response = try await fixture.server.get("/v1/messages/\(id)", token: fixture.apiKey)
        try #require(response.status == 200, "\(response.text)")
        return response.object
    }

    static func funnel(_ message: [String: Any]) -> [String: Any] { message["funnel"] as? [String: Any] ?? [:] }

    static func inboxIDs(_ fixture: PushFixture, _ user: String) async throws -> [String] {
        let page = try await fixture.server.get("/v1/me/notifications", token: try fixture.server.token(user)).object
        return (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    static func unread(_ fixture: PushFixture, _ user: String) async throws -> Int? {
        try await fixture.server.get("/v1/me/counts", token: try fixture.server.token(user)).object["unread"] as? Int
    }

    static func patchPreferences(_ fixture: PushFixture, _ user: String, _ json: String) async throws {
        let response = try await fixture.server.send(
            "PATCH", "/v1/me/preferences", json: json, token: try fixture.server.token(user))
        try #require(response.status == 200, "\(response.text)")
    }

    static func alert(_ notification: [String: Any]) -> [String: Any] {
        ((notification["aps"] as? [String: Any])?["alert"] as? [String: Any]) ?? [:]
    }

    @Test(
        "a publish is a message: its funnel counts recipients, pushes by outcome, opens and reads; list and 404",
        arguments: ServerDatabase.available)
    func funnel(_ database: ServerDatabase) async throws {
        try await PushFixture.run(on: database) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            let answer = try await Self.publish(
                fixture,
                #"{"recipients":["ana","bo"],"type":"order.shipped","title":"Shipped","body":"Friday","push":{"send":true}}"#
            )
            let messageID = try #require(answer["messageId"] as? String)
            let ids = Self.notificationIDs(answer)
            #expect(ids.count == 2)
            _ = try await fixture.settledDeliveries(of: ids[0])
            let ana = try fixture.server.token("ana")
            #expect(
                try await fixture.server.send("POST", "/v1/me/notifications/\(ids[0])/opened", token: ana).status
                    == 200
            )
            #expect(
                try await fixture.server.send("POST", "/v1/me/notifications/\(ids[0])/read", token: ana).status
                    == 200)

            #expect(try await becomesTrue { try await Self.message(fixture, messageID)["completedAt"] is String })
            let message = try await Self.message(fixture, messageID)
            #expect(message["kind"] as? String == "publish" && message["type"] as? String == "order.shipped")
            #expect(message["status"] as? String == "completed")
            let funnel = Self.funnel(message)
            #expect(funnel["recipients"] as? Int == 2 && funnel["published"] as? Int == 2)
            #expect(funnel["scheduled"] as? Int == 0)
            let pushes = funnel["pushes"] as? [String: Int] ?? [:]
            #expect(pushes["sent"] == 1 && pushes["skipped"] == 1 && pushes["total"] == 2, "\(pushes)")
            #expect(funnel["skipped"] as? [String: Int] == ["no_device": 1])
            #expect(funnel["opened"] as? Int == 1 && funnel["read"] as? Int == 1)

            _ = try await Self.publish(
                fixture, #"{"recipients":["ana"],"type":"promo.flash","title":"Sale","body":""}"#)
            let all = try await fixture.server.get("/v1/messages", token: fixture.apiKey).object
            let listed = (all["items"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(listed == ["promo.flash", "order.shipped"], "newest first")
            let filtered = try await fixture.server.get("/v1/messages?type=order.shipped", token: fixture.apiKey)
                .object
            #expect((filtered["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [messageID])
            let paged = try await fixture.server.get("/v1/messages?limit=1", token: fixture.apiKey).object
            let cursor = try #require(paged["nextCursor"] as? String)
            let next = try await fixture.server.get("/v1/messages?limit=1&cursor=\(cursor)", token: fixture.apiKey)
            #expect((next.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [messageID])

            let missing = try await fixture.server.get("/v1/messages/msg_nope", token: fixture.apiKey)
            #expect(missing.status == 404 && missing.errorCode == "not_found")
            #expect(try await fixture.server.get("/v1/messages/\(messageID)").status == 401)
            #expect(try await fixture.server.get("/v1/messages?kind=nope", token: fixture.apiKey).status == 400)
        }
    }

    @Test(
        "a broadcast is a message under its own id, and its funnel counts what the fan-out wrote",
        arguments: ServerDatabase.available)
    func broadcastMessage(_ database: ServerDatabase) async throws {
        try await PushFixture.run(on: database) { fixture in
            try await fixture.register(PushFixture.deviceToken(), for: "ana")
            let created = try await fixture.server.send(
                "POST", "/v1/broadcasts",
                json:
                    #"{"audience":{"userIds":["ana","bo"]},"type":"announcement.news","title":"News","body":"","push":{"send":true}}"#,
                token: fixture.apiKey)
            #expect(created.status == 202, "\(created.text)")
            let id = try #require(created.object["id"] as? String)
            #expect(created.object["messageId"] as? String == id)
            #expect(
                try await becomesTrue {
                    let funnel = Self.funnel(try await Self.message(fixture, id))
                    return funnel["published"] as? Int == 2
                        && (funnel["pushes"] as? [String: Int])?["sent"] == 1
                })
            #expect(try await Self.message(fixture, id)["kind"] as? String == "broadcast")
        }
    }

    @Test(
        "sendAt: nothing is visible or pushed before its time; then it appears and pushes once, as if published then",
        arguments: ServerDatabase.available)
    func sendAt(_ database: ServerDatabase) async throws {
        let clock = OffsetClock()
        try await PushFixture.run(on: database, clock: clock) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            let sendAt = clock.now.addingTimeInterval(3_600).rounded
            let answer = try await Self.publish(
                fixture,
                #"{"recipients":["ana"],"type":"order.shipped","title":"Later","body":"","push":{"send":true},"sendAt":"\#(sendAt.formatted(.iso8601))"}"#
            )
            let messageID = try #require(answer["messageId"] as? String)
            let id = try #require(Self.notificationIDs(answer).first)
            let published = try #require((answer["notifications"] as? [[String: Any]])?.first)
            #expect(published["sendAt"] as? String == sendAt.formatted(.iso8601))

            try await Task.sleep(for: .milliseconds(200))  // several of the runner's looks
            #expect(try await Self.inboxIDs(fixture, "ana").isEmpty)
            #expect(try await Self.unread(fixture, "ana") == 0)
            let ana = try fixture.server.token("ana")
            #expect(try await fixture.server.get("/v1/me/notifications/\(id)", token: ana).status == 404)
            #expect(fixture.sandbox.accepted(for: token).isEmpty)
            let waiting = try await Self.message(fixture, messageID)
            #expect(waiting["status"] as? String == "scheduled" && Self.funnel(waiting)["scheduled"] as? Int == 1)
            let scheduled = try await fixture.server.get("/v1/messages?status=scheduled", token: fixture.apiKey)
            #expect((scheduled.object["items"] as? [[String: Any]])?.count == 1)

            clock.advance(by: 3_600)
            #expect(try await becomesTrue { try await Self.inboxIDs(fixture, "ana") == [id] })
            #expect(try await Self.unread(fixture, "ana") == 1)
            struct Page: Decodable { var items: [Item] }
            struct Item: Decodable { var createdAt: Date }
            // A token minted after the clock moved (the first one has expired by then).
            let inbox = try await fixture.server.get("/v1/me/notifications", token: try fixture.server.token("ana"))
            let createdAt = try #require(try inbox.decode(Page.self).items.first?.createdAt, "\(inbox.text)")
            #expect(createdAt >= sendAt, "it is published at its time, not when it was sent in")
            #expect(try await fixture.settledDeliveries(of: id).map(\.status) == ["sent"])
            try await Task.sleep(for: .milliseconds(200))
            #expect(fixture.sandbox.accepted(for: token).count == 1)
            #expect(Self.funnel(try await Self.message(fixture, messageID))["scheduled"] as? Int == 0)
        }
    }

    @Test(
        "deliverAt localTime: each recipient's time in their preferences' zone, else their newest device's, else UTC",
        arguments: ServerDatabase.available)
    func deliverAtLocalTime(_ database: ServerDatabase) async throws {
        try await PushFixture.run(on: database) { fixture in
            try await Self.patchPreferences(fixture, "tokyo", #"{"timeZone":"Asia/Tokyo"}"#)
            let device = DeviceRegistration(
                token: PushFixture.deviceToken(), provider: .apns, platform: .ios, timeZone: "America/New_York")
            let registered = try await fixture.server.send(
                "POST", "/v1/me/devices", body: device, token: try fixture.server.token("newyork"))
            #expect(registered.status == 200, "\(registered.text)")
            let before = Date()
            let answer = try await Self.publish(
                fixture,
                #"{"recipients":["tokyo","newyork","nowhere"],"type":"order.shipped","title":"Morning","body":"","deliverAt":{"localTime":"09:30"}}"#
            )
            let after = Date()
            let times = (answer["notifications"] as? [[String: Any]] ?? []).compactMap {
                ($0["sendAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
            }
            #expect(times.count == 3)
            for (time, zone) in zip(times, ["Asia/Tokyo", "America/New_York", "UTC"]) {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = try #require(TimeZone(identifier: zone))
                let parts = calendar.dateComponents([.hour, .minute], from: time)
                #expect(parts.hour == 9 && parts.minute == 30, "\(zone): \(time)")
                #expect(
                    time >= before.addingTimeInterval(-60) && time <= after.addingTimeInterval(86_400), "\(zone)")
            }
        }
    }

    @Test("a sendAt in the past or more than a year ahead, sendAt with deliverAt, or a bad local time is a 400")
    func scheduleRefused() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let base = #""recipients":["ana"],"type":"order.shipped","title":"T","body":"""#
            let past = Date().addingTimeInterval(-3_600).formatted(.iso8601)
            let far = Date().addingTimeInterval(366 * 86_400).formatted(.iso8601)
            for (extra, field) in [
                (#","sendAt":"\#(past)""#, "sendAt"), (#","sendAt":"\#(far)""#, "sendAt"),
                (
                    #","sendAt":"\#(Date().addingTimeInterval(60).formatted(.iso8601))","deliverAt":{"localTime":"09:00"}"#,
                    "deliverAt"
                ),
                (#","deliverAt":{"localTime":"9am"}"#, "deliverAt.localTime"),
                (#","deliverAt":{"localTime":"09:00","zone":"UTC"}"#, nil),
                (#","sendAt":"tomorrow""#, nil),
            ] {
                let response = try await server.send(
                    "POST", "/v1/notifications", json: "{\(base)\(extra)}", token: key)
                #expect(response.status == 400, "\(extra): \(response.text)")
                if let field {
                    #expect(response.errorMessage?.hasPrefix(field + " ") == true, "\(extra): \(response.text)")
                }
            }
        }
    }

    @Test(
        "cancel: a scheduled message never appears; a held push is skipped as cancelled; a second cancel finds nothing",
        arguments: ServerDatabase.available)
    func cancel(_ database: ServerDatabase) async throws {
        let clock = OffsetClock()
        try await PushFixture.run(on: database, clock: clock) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            let sendAt = clock.now.addingTimeInterval(600).formatted(.iso8601)
            let scheduled = try await Self.publish(
                fixture,
                #"{"recipients":["ana","bo"],"type":"order.shipped","title":"Later","body":"","push":{"send":true},"sendAt":"\#(sendAt)"}"#
            )
            let scheduledID = try #require(scheduled["messageId"] as? String)
            let cancelled = try await fixture.server.delete("/v1/messages/\(scheduledID)", token: fixture.apiKey)
            #expect(cancelled.status == 200, "\(cancelled.text)")
            #expect(cancelled.object["cancelled"] as? Int == 2 && cancelled.object["scheduled"] as? Int == 2)
            let again = try await fixture.server.delete("/v1/messages/\(scheduledID)", token: fixture.apiKey)
            #expect(again.object["cancelled"] as? Int == 0)
            #expect(again.object["cancelledAt"] as? String == cancelled.object["cancelledAt"] as? String)
            clock.advance(by: 600)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.inboxIDs(fixture, "ana").isEmpty)
            #expect(fixture.sandbox.accepted(for: token).isEmpty)
            #expect(try await Self.message(fixture, scheduledID)["status"] as? String == "cancelled")

            // A push a snooze holds has not gone out: cancelling skips it; the inbox keeps the row.
            let until = clock.now.addingTimeInterval(3_600).formatted(.iso8601)
            try await Self.patchPreferences(fixture, "ana", #"{"snoozedUntil":"\#(until)"}"#)
            let held = try await Self.publish(
                fixture,
                #"{"recipients":["ana"],"type":"order.shipped","title":"Held","body":"","push":{"send":true}}"#)
            let heldID = try #require(held["messageId"] as? String)
            let notification = try #require(Self.notificationIDs(held).first)
            #expect(try await fixture.settledDeliveries(of: notification).map(\.status) == ["deferred"])
            let stopped = try await fixture.server.delete("/v1/messages/\(heldID)", token: fixture.apiKey)
            #expect(stopped.object["pushes"] as? Int == 1 && stopped.object["scheduled"] as? Int == 0)
            let rows = try await fixture.settledDeliveries(of: notification)
            #expect(rows.map(\.status) == ["skipped"] && rows.map(\.reason) == ["cancelled"])
            #expect(try await Self.inboxIDs(fixture, "ana") == [notification])
            #expect(try await fixture.server.delete("/v1/messages/msg_nope", token: fixture.apiKey).status == 404)
        }
    }

    @Test(
        "source mutes: a muted source's pushes are skipped (source_muted), the inbox still shows them, account passes",
        arguments: ServerDatabase.available)
    func sourceMutes(_ database: ServerDatabase) async throws {
        try await PushFixture.run(on: database) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            func publish(_ type: String, source: String, name: String) async throws -> String {
                let answer = try await Self.publish(
                    fixture,
                    #"{"recipients":["ana"],"type":"\#(type)","title":"From \#(name)","body":"","push":{"send":true},"source":{"id":"\#(source)","name":"\#(name)"}}"#
                )
                return try #require(Self.notificationIDs(answer).first)
            }
            let first = try await publish("order.shipped", source: "github", name: "GitHub")
            _ = try await publish("order.shipped", source: "jira", name: "Jira")
            _ = try await fixture.settledDeliveries(of: first)
            try await Self.patchPreferences(fixture, "ana", #"{"mutedSources":["github"]}"#)

            let muted = try await publish("order.shipped", source: "github", name: "GitHub Enterprise")
            let other = try await publish("order.shipped", source: "jira", name: "Jira")
            let account = try await publish("account.password_changed", source: "github", name: "GitHub Enterprise")
            let mutedRows = try await fixture.settledDeliveries(of: muted)
            #expect(mutedRows.map(\.status) == ["skipped"] && mutedRows.map(\.reason) == ["source_muted"])
            #expect(try await fixture.settledDeliveries(of: other).map(\.status) == ["sent"])
            #expect(try await fixture.settledDeliveries(of: account).map(\.status) == ["sent"])
            #expect(try await Self.inboxIDs(fixture, "ana").contains(muted), "PREFS-07: the inbox still shows it")

            let sources = try await fixture.server.get("/v1/me/sources", token: try fixture.server.token("ana"))
            let items = sources.object["items"] as? [[String: Any]] ?? []
            #expect(
                items.compactMap { $0["id"] as? String } == ["github", "jira"], "most recently heard from first")
            #expect(items.first?["name"] as? String == "GitHub Enterprise", "the newest name")
            #expect(items.compactMap { $0["muted"] as? Bool } == [true, false])
            #expect(try await fixture.server.get("/v1/me/sources").status == 401)

            for bad in [#"{"mutedSources":["has space"]}"#, #"{"mutedSources":"github"}"#] {
                let response = try await fixture.server.send(
                    "PATCH", "/v1/me/preferences", json: bad, token: try fixture.server.token("ana"))
                #expect(response.status == 400, "\(bad): \(response.text)")
            }
            let badSource = try await fixture.server.send(
                "POST", "/v1/notifications",
                json:
                    #"{"recipients":["ana"],"type":"order.shipped","title":"T","body":"","source":{"id":"","name":"X"}}"#,
                token: fixture.apiKey)
            #expect(badSource.status == 400 && badSource.errorMessage?.hasPrefix("source.id ") == true)
        }
    }

    /// Stores `document` as the app config.
    static func putAppConfig(_ fixture: PushFixture, _ document: String) async throws {
        let response = try await fixture.server.send("PUT", "/v1/app-config", json: document, token: fixture.apiKey)
        try #require(response.status == 200, "\(response.text)")
    }

    @Test(
        "frequency caps: a push over the cap is skipped (throttled) until the period passes; account is never capped",
        arguments: ServerDatabase.available)
    func frequencyCaps(_ database: ServerDatabase) async throws {
        let clock = OffsetClock()
        try await PushFixture.run(on: database, clock: clock) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            try await Self.putAppConfig(
                fixture, #"{"frequencyCaps":[{"category":"promotions","max":2,"periodSeconds":3600}]}"#)
            var statuses: [String] = []
            for _ in 0..<3 {
                let id = try await fixture.publish(to: "ana", type: "promo.flash")
                let rows = try await fixture.settledDeliveries(of: id)
                statuses.append(rows.map { $0.reason ?? $0.status }.joined())
            }
            #expect(statuses == ["sent", "sent", "throttled"])
            let other = try await fixture.publish(to: "ana", type: "order.shipped")
            #expect(
                try await fixture.settledDeliveries(of: other).map(\.status) == ["sent"], "other categories pass")
            clock.advance(by: 3_601)
            let later = try await fixture.publish(to: "ana", type: "promo.flash")
            #expect(try await fixture.settledDeliveries(of: later).map(\.status) == ["sent"])

            let refused = try await fixture.server.send(
                "PUT", "/v1/app-config",
                json: #"{"frequencyCaps":[{"category":"account","max":1,"periodSeconds":60}]}"#,
                token: fixture.apiKey)
            #expect(refused.status == 400 && refused.errorCode == "not_configurable", "\(refused.text)")
            let zero = try await fixture.server.send(
                "PUT", "/v1/app-config",
                json: #"{"frequencyCaps":[{"category":"promotions","max":0,"periodSeconds":60}]}"#,
                token: fixture.apiKey)
            #expect(zero.status == 400 && zero.errorCode == "out_of_range", "\(zero.text)")
        }
    }

    @Test(
        "digest: marked pushes wait (digested) and go out as one summary at the user's time; inbox at once; account never",
        arguments: ServerDatabase.available
    )
    func digest(_ database: ServerDatabase) async throws {
        let clock = OffsetClock()
        try await PushFixture.run(on: database, clock: clock) { fixture in
            let token = PushFixture.deviceToken()
            try await fixture.register(token, for: "ana")
            try await Self.putAppConfig(
                fixture,
                #"{"digestCategories":["rewards"],"frequencyCaps":[{"category":"promotions","max":1,"periodSeconds":86400}],"digestTemplate":{"title":"Today: {count}","body":"{titles}"}}"#
            )
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            let soon = clock.now.addingTimeInterval(2 * 3_600)
            let parts = calendar.dateComponents([.hour, .minute], from: soon)
            let localTime = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
            try await Self.patchPreferences(
                fixture, "ana", #"{"timeZone":"UTC","digest":{"enabled":true,"localTime":"\#(localTime)"}}"#)

            let marked = try await fixture.server.publish(
                to: ["ana"], title: "First", extra: #","push":{"send":true,"digest":true}"#, key: fixture.apiKey)
            let listed = try await fixture.server.publish(
                to: ["ana"], type: "loyalty.points", title: "Second", extra: #","push":{"send":true}"#,
                key: fixture.apiKey)
            let capped = try await fixture.server.publish(
                to: ["ana"], type: "promo.flash", title: "Sale", extra: #","push":{"send":true}"#,
                key: fixture.apiKey)
            let overCap = try await fixture.server.publish(
                to: ["ana"], type: "promo.flash", title: "Third", extra: #","push":{"send":true}"#,
                key: fixture.apiKey)
            let account = try await fixture.server.publish(
                to: ["ana"], type: "account.password_changed", extra: #","push":{"send":true,"digest":true}"#,
                key: fixture.apiKey)
            for id in marked + listed + overCap {
                #expect(try await fixture.settledDeliveries(of: id).map(\.status) == ["digested"])
            }
            #expect(try await fixture.settledDeliveries(of: capped[0]).map(\.status) == ["sent"])
            #expect(try await fixture.settledDeliveries(of: account[0]).map(\.status) == ["sent"])
            #expect(
                try await Self.inboxIDs(fixture, "ana").count == 5, "the inbox shows every notification at once")
            #expect(fixture.sandbox.accepted(for: token).count == 2)

            clock.advance(by: 2 * 3_600 + 60)
            #expect(try await becomesTrue { fixture.sandbox.accepted(for: token).count == 3 })
            let summary = try #require(fixture.sandbox.accepted(for: token).last).payloadObject
            #expect(Self.alert(summary)["title"] as? String == "Today: 3")
            #expect(Self.alert(summary)["body"] as? String == "Third, Second, First")
            try await Task.sleep(for: .milliseconds(300))
            #expect(fixture.sandbox.accepted(for: token).count == 3, "one summary, sent once")
            #expect(try await fixture.settledDeliveries(of: marked[0]).map(\.status) == ["digested"])

            // Turned off: what it holds goes out at once.
            let later = try await fixture.server.publish(
                to: ["ana"], title: "Fourth", extra: #","push":{"send":true,"digest":true}"#, key: fixture.apiKey)
            #expect(try await fixture.settledDeliveries(of: later[0]).map(\.status) == ["digested"])
            try await Self.patchPreferences(fixture, "ana", #"{"digest":{"enabled":false,"localTime":"08:00"}}"#)
            #expect(try await becomesTrue { fixture.sandbox.accepted(for: token).count == 4 })
            #expect(
                Self.alert(try #require(fixture.sandbox.accepted(for: token).last).payloadObject)["title"]
                    as? String
                    == "Today: 1")
        }
    }
}
