import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldSandbox
import HeraldTestSupport
import Testing

/// Live Activities over real sockets: the app registers its ActivityKit tokens, a publisher
/// starts, updates and ends an activity, and the worker sends each push to the APNs look-alike.
@Suite("Live Activities: start, update, end and token pruning through APNs")
struct LiveActivityTests {
    static let contentState = #"{"stops":3,"status":"on the way","eta":1800000600.5}"#

    /// Registers an ActivityKit token for `user`: an update token of `activity`, else push-to-start.
    static func registerToken(
        _ fixture: PushFixture, _ token: String, activity: String? = nil, type: String = "DeliveryAttributes",
        for user: String = "alice"
    ) async throws {
        let registration = LiveActivityTokenRegistration(
            token: token, attributesType: type, activityId: activity, kind: activity == nil ? .pushToStart : nil)
        let response = try await fixture.server.send(
            "POST", "/v1/me/live-activities", body: registration, token: try fixture.server.token(user))
        try #require(response.status == 200, "\(response.text)")
        #expect(response.object["active"] as? Bool == true && response.object["userId"] as? String == user)
    }

    /// The deliveries of `activity` once none is queued or sending.
    static func settled(_ fixture: PushFixture, _ activity: String) async throws -> [DeliveryTests.Answer.Item] {
        var items: [DeliveryTests.Answer.Item] = []
        _ = try await becomesTrue(within: .seconds(10)) {
            let response = try await fixture.server.get(
                "/v1/live-activities/\(activity)/deliveries", token: fixture.apiKey)
            try #require(response.status == 200, "\(response.text)")
            items = try response.decode(DeliveryTests.Answer.self).items
            return items.allSatisfy { !["queued", "sending"].contains($0.status) }
        }
        return items
    }

    /// The `aps` of the pushes the look-alike accepted for `token`, once there are `count`.
    static func accepted(_ fixture: PushFixture, _ token: String, count: Int) async throws -> [APNsNotification] {
        _ = try await becomesTrue(within: .seconds(10)) { fixture.sandbox.accepted(for: token).count >= count }
        return fixture.sandbox.accepted(for: token)
    }

    @Test(
        "a start goes to the user's push-to-start tokens of its type as a liveactivity push, answered with its deliveries"
    )
    func start() async throws {
        try await PushFixture.run { fixture in
            let startToken = PushFixture.deviceToken()
            let otherType = PushFixture.deviceToken()
            let device = PushFixture.deviceToken()
            try await Self.registerToken(fixture, startToken)
            try await Self.registerToken(fixture, otherType, type: "ScoreAttributes")
            try await fixture.register(device, for: "alice")
            let before = Int64(Date().timeIntervalSince1970)
            let response = try await fixture.server.send(
                "POST", "/v1/users/alice/live-activities",
                json: """
                    {"activityId":"order-42","attributesType":"DeliveryAttributes","attributes":{"orderId":"42"},
                     "contentState":\(Self.contentState),"staleDate":"2027-01-15T10:00:00Z",
                     "alert":{"title":"On its way","body":"3 stops to go","sound":"default"},"relevanceScore":50}
                    """, token: fixture.apiKey)
            let after = Int64(Date().timeIntervalSince1970)
            try #require(response.status == 202, "\(response.text)")
            let answer = response.object
            #expect(answer["activityId"] as? String == "order-42" && answer["event"] as? String == "start")
            #expect(answer["userId"] as? String == "alice" && (answer["id"] as? String)?.isEmpty == false)
            let deliveries = try #require(answer["deliveries"] as? [[String: Any]])
            #expect(deliveries.count == 1 && deliveries.first?["status"] as? String == "queued")
            #expect(deliveries.first?["notificationId"] as? String == answer["id"] as? String)

            let push = try #require(try await Self.accepted(fixture, startToken, count: 1).first)
            #expect(push.pushType == "liveactivity" && push.priority == 10)
            #expect(push.topic == fixture.credentials.bundleID + ".push-type.liveactivity")
            #expect(push.apnsID == deliveries.first?["id"] as? String)
            let aps = try #require(push.payloadObject["aps"] as? [String: Any])
            let timestamp = Int64(try #require(aps["timestamp"] as? Int))
            #expect((before...after).contains(timestamp), "aps.timestamp is the publish time in seconds")
            #expect(aps["event"] as? String == "start" && aps["attributes-type"] as? String == "DeliveryAttributes")
            #expect((aps["attributes"] as? [String: Any])?["orderId"] as? String == "42")
            let state = try #require(aps["content-state"] as? [String: Any])
            #expect(state["stops"] as? Int == 3 && state["status"] as? String == "on the way")
            #expect(state["eta"] as? Double == 1_800_000_600.5)
            #expect(aps["stale-date"] as? Int == 1_800_007_200, "2027-01-15T10:00:00Z")
            #expect(aps["relevance-score"] as? Int == 50 && aps["input-push-token"] as? Int == 1)
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["title"] as? String == "On its way" && alert["sound"] as? String == "default")
            #expect(fixture.sandbox.accepted(for: otherType).isEmpty && fixture.sandbox.accepted(for: device).isEmpty)

            let settled = try await Self.settled(fixture, "order-42")
            #expect(settled.map(\.status) == ["sent"] && settled.first?.providerStatus == 200)
        }
    }

    @Test("an update and an end go to the activity's update token; normal priority is 5; dates are UNIX seconds")
    func updateAndEnd() async throws {
        try await PushFixture.run { fixture in
            let token = PushFixture.deviceToken()
            try await Self.registerToken(fixture, token, activity: "ride-1")
            let update = try await fixture.server.send(
                "POST", "/v1/live-activities/ride-1",
                json: #"{"event":"update","contentState":{"stops":2},"priority":"normal","ttlSeconds":600}"#,
                token: fixture.apiKey)
            #expect(update.status == 202, "\(update.text)")
            let end = try await fixture.server.send(
                "POST", "/v1/live-activities/ride-1",
                json: #"""
                    {"event":"end","contentState":{"stops":0},"dismissalDate":"2027-01-15T12:00:00Z","ttlSeconds":0}
                    """#,
                token: fixture.apiKey)
            #expect(end.status == 202, "\(end.text)")

            let pushes = try await Self.accepted(fixture, token, count: 2)
            let updated = try #require(
                pushes.first { ($0.payloadObject["aps"] as? [String: Any])?["event"] as? String == "update" })
            #expect(updated.priority == 5 && updated.expiration != nil && updated.pushType == "liveactivity")
            let updateAPS = try #require(updated.payloadObject["aps"] as? [String: Any])
            #expect(updateAPS["attributes-type"] == nil && updateAPS["input-push-token"] == nil)
            let ended = try #require(
                pushes.first { ($0.payloadObject["aps"] as? [String: Any])?["event"] as? String == "end" })
            #expect(ended.priority == 10 && ended.expiration == 0, "a TTL of 0: one attempt, never stored")
            let endAPS = try #require(ended.payloadObject["aps"] as? [String: Any])
            #expect(endAPS["dismissal-date"] as? Int == 1_800_014_400, "2027-01-15T12:00:00Z")
            #expect((endAPS["content-state"] as? [String: Any])?["stops"] as? Int == 0)

            let again = try await fixture.server.send(
                "POST", "/v1/live-activities/ride-1", json: #"{"event":"update","contentState":{}}"#,
                token: fixture.apiKey)
            expectError(again, 409, "live_activity_ended")
            #expect(try await Self.settled(fixture, "ride-1").map(\.status) == ["sent", "sent"])
        }
    }

    @Test("a 410 or BadDeviceToken deactivates that Live Activity token, never the device; the next push has none")
    func pruning() async throws {
        try await PushFixture.run { fixture in
            let updateToken = PushFixture.deviceToken()
            let startToken = PushFixture.deviceToken()
            let device = PushFixture.deviceToken()
            try await fixture.register(device, for: "alice")
            try await Self.registerToken(fixture, updateToken, activity: "ride-1")
            try await Self.registerToken(fixture, startToken)
            fixture.sandbox.setFault(.unregistered, for: updateToken)
            fixture.sandbox.setFault(.badDeviceToken, for: startToken)

            let update = #"{"event":"update","contentState":{"stops":1}}"#
            _ = try await fixture.server.send("POST", "/v1/live-activities/ride-1", json: update, token: fixture.apiKey)
            let pruned = try await Self.settled(fixture, "ride-1")
            #expect(pruned.map(\.status) == ["failed"] && pruned.first?.reason == "Unregistered")
            #expect(pruned.first?.providerStatus == 410)

            let start = try await fixture.server.send(
                "POST", "/v1/users/alice/live-activities",
                json: """
                    {"activityId":"ride-2","attributesType":"DeliveryAttributes","attributes":{},
                     "contentState":{},"alert":{"title":"Ride","body":"Your driver is near"}}
                    """, token: fixture.apiKey)
            #expect(start.status == 202, "\(start.text)")
            let refused = try await Self.settled(fixture, "ride-2")
            #expect(refused.map(\.status) == ["failed"] && refused.first?.reason == "BadDeviceToken")

            #expect(try await fixture.deviceActiveFlags(of: "alice") == [true], "the device is not pruned")
            let next = try await fixture.server.send(
                "POST", "/v1/live-activities/ride-1", json: update, token: fixture.apiKey)
            #expect(next.status == 202)
            let items = try #require(next.object["deliveries"] as? [[String: Any]])
            #expect(items.count == 1 && items.first?["reason"] as? String == "no_device")
            #expect(
                fixture.sandbox.accepted(for: updateToken).isEmpty && fixture.sandbox.accepted(for: startToken).isEmpty)
        }
    }
}

@Suite("Live Activities: bad requests answer 400 naming the field")
struct LiveActivityValidationTests {
    static let token = String(repeating: "ab", count: 32)

    static func field(_ response: LoopbackResponse) -> String? {
        (response.object["error"] as? [String: Any])?["field"] as? String
    }

    @Test(
        "registrations",
        arguments: [
            (#"{"attributesType":"A","token":"\#(token)"}"#, "activityId"),
            (#"{"activityId":"x","attributesType":"A","token":"zz"}"#, "token"),
            (#"{"activityId":"x","attributesType":"1A","token":"\#(token)"}"#, "attributesType"),
            (#"{"activityId":"a b","attributesType":"A","token":"\#(token)"}"#, "activityId"),
            (#"{"activityId":"x","attributesType":"A","token":"\#(token)","kind":"pushToStart"}"#, "activityId"),
            (#"{"attributesType":"A","token":"\#(token)","kind":"later"}"#, "kind"),
        ])
    func registrations(_ json: String, _ field: String) async throws {
        try await withServer { server in
            let response = try await server.send(
                "POST", "/v1/me/live-activities", json: json, token: try server.token("alice"))
            #expect(response.status == 400, "\(response.text)")
            #expect(Self.field(response) == field, "\(response.text)")
            let anonymous = try await server.send("POST", "/v1/me/live-activities", json: json)
            #expect(anonymous.status == 401)
        }
    }

    static let start = #""attributesType":"A","attributes":{},"contentState":{},"alert":{"title":"t","body":"b"}"#

    @Test(
        "pushes",
        arguments: [
            ("/v1/users/alice/live-activities", #"{"event":"update",\#(start)}"#, "event"),
            (
                "/v1/users/alice/live-activities",
                #"{"attributes":{},"contentState":{},"alert":{"title":"t","body":"b"}}"#, "attributesType"
            ),
            ("/v1/users/alice/live-activities", #"{"attributesType":"A","attributes":{},"contentState":{}}"#, "alert"),
            (
                "/v1/users/alice/live-activities",
                #"{"attributesType":"A","attributes":{},"contentState":[1],"alert":{"title":"t","body":"b"}}"#,
                "contentState"
            ),
            ("/v1/users/alice/live-activities", #"{\#(start),"staleDate":"tomorrow"}"#, "staleDate"),
            ("/v1/users/alice/live-activities", #"{\#(start),"priority":"normal"}"#, "priority"),
            (
                "/v1/users/alice/live-activities", #"{\#(start),"dismissalDate":"2027-01-15T12:00:00Z"}"#,
                "dismissalDate"
            ),
            ("/v1/users/alice/live-activities", #"{\#(start),"sound":"x"}"#, "sound"),
            ("/v1/users/alice/live-activities", #"{\#(start),"relevanceScore":-1}"#, "relevanceScore"),
            ("/v1/live-activities/ride-1", #"{"contentState":{}}"#, "event"),
            ("/v1/live-activities/ride-1", #"{"event":"start","contentState":{}}"#, "event"),
            ("/v1/live-activities/ride-1", #"{"event":"pause","contentState":{}}"#, "event"),
            ("/v1/live-activities/ride-1", #"{"event":"update"}"#, "contentState"),
            ("/v1/live-activities/ride-1", #"{"event":"update","contentState":{},"attributes":{}}"#, "attributes"),
            (
                "/v1/live-activities/ride-1",
                #"{"event":"update","contentState":{},"dismissalDate":"2027-01-15T12:00:00Z"}"#, "dismissalDate"
            ),
        ])
    func pushes(_ path: String, _ json: String, _ field: String) async throws {
        try await withServer { server in
            let response = try await server.send("POST", path, json: json, token: try await server.apiKey())
            #expect(response.status == 400, "\(response.text)")
            #expect(Self.field(response) == field, "\(response.text)")
        }
    }

    @Test("sign-out unregisters a Live Activity token (any case, idempotent); another user's token is never touched")
    func unregister() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let token = String(repeating: "ab", count: 32)
            let pushToStart = #"{"token":"\#(token)","attributesType":"A","kind":"pushToStart"}"#
            let registered = try await server.send(
                "POST", "/v1/me/live-activities", json: pushToStart, token: try server.token("alice"))
            #expect(registered.status == 200, "\(registered.text)")
            let bobs = try await server.send(
                "DELETE", "/v1/me/live-activities/\(token)", token: try server.token("bob"))
            #expect(bobs.status == 204)
            let reached = try await server.send(
                "POST", "/v1/users/alice/live-activities", json: #"{"activityId":"a1",\#(Self.start)}"#, token: key)
            #expect((reached.object["deliveries"] as? [[String: Any]])?.first?["status"] as? String == "queued")
            for _ in 0..<2 {
                let gone = try await server.send(
                    "DELETE", "/v1/me/live-activities/\(token.uppercased())", token: try server.token("alice"))
                #expect(gone.status == 204)
            }
            let none = try await server.send(
                "POST", "/v1/users/alice/live-activities", json: #"{"activityId":"a2",\#(Self.start)}"#, token: key)
            #expect((none.object["deliveries"] as? [[String: Any]])?.first?["reason"] as? String == "no_device")
            #expect(try await server.send("DELETE", "/v1/me/live-activities/\(token)").status == 401)
        }
    }

    @Test(
        "an unknown activity is 404, a taken activity id 409 (free again when its start reached no device), another user's activity 404 to an app, and a push over APNs's 4 KB 400 push_too_large"
    )
    func refusals() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let update = #"{"event":"update","contentState":{}}"#
            expectError(
                try await server.send("POST", "/v1/live-activities/nope", json: update, token: key), 404, "not_found")
            expectError(try await server.get("/v1/live-activities/nope/deliveries", token: key), 404, "not_found")
            let start = #"{"activityId":"ride-1",\#(Self.start)}"#
            let first = try await server.send("POST", "/v1/users/alice/live-activities", json: start, token: key)
            #expect(first.status == 202, "\(first.text)")
            let items = first.object["deliveries"] as? [[String: Any]]
            #expect(items?.count == 1 && items?.first?["reason"] as? String == "no_device")
            // A start that reached no device leaves its id free; one that reached a device takes it.
            let pushToStart =
                #"{"token":"\#(String(repeating: "ab", count: 32))","attributesType":"A","kind":"pushToStart"}"#
            let registered = try await server.send(
                "POST", "/v1/me/live-activities", json: pushToStart, token: try server.token("alice"))
            #expect(registered.status == 200, "\(registered.text)")
            let again = try await server.send("POST", "/v1/users/alice/live-activities", json: start, token: key)
            #expect(again.status == 202, "\(again.text)")
            expectError(
                try await server.send("POST", "/v1/users/alice/live-activities", json: start, token: key), 409,
                "live_activity_exists")
            // Another user's app cannot take the activity over by naming its id.
            let theft =
                #"{"token":"\#(String(repeating: "cd", count: 32))","attributesType":"A","activityId":"ride-1"}"#
            expectError(
                try await server.send("POST", "/v1/me/live-activities", json: theft, token: try server.token("bob")),
                404, "not_found")
            let big = #"{"event":"update","contentState":{"text":"\#(String(repeating: "x", count: 4_100))"}}"#
            let tooLarge = try await server.send("POST", "/v1/live-activities/ride-1", json: big, token: key)
            expectError(tooLarge, 400, "push_too_large")
            #expect(Self.field(tooLarge) == "contentState")
            #expect(try await server.send("POST", "/v1/live-activities/ride-1", json: update).status == 401)
        }
    }
}
