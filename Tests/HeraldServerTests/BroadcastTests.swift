import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldServer
import HeraldTestSupport
import Testing

@testable import HeraldStore

@Suite("Broadcasts")
struct BroadcastTests {
    static let content = #""type":"announcement.sale","title":"Summer sale","body":"Everything half price""#

    static func body(audience: String, extra: String = "") -> String {
        #"{"audience":\#(audience),\#(content)\#(extra)}"#
    }

    /// Posts a broadcast and answers its id, after checking the 202 answer.
    static func post(_ server: TestServer, key: String, audience: String, extra: String = "") async throws -> String {
        let response = try await server.send(
            "POST", "/v1/broadcasts", json: body(audience: audience, extra: extra), token: key)
        try #require(response.status == 202, "\(response.status): \(response.text)")
        let id = try #require(response.object["id"] as? String)
        #expect(response.header("Location") == "/v1/broadcasts/\(id)")
        #expect(response.object["status"] as? String == "queued")
        #expect(response.object["processed"] as? Int == 0)
        return id
    }

    /// Reads the broadcast until it is no longer queued or running, for at most `deadline`.
    static func finished(
        _ server: TestServer, key: String, id: String, deadline: Duration = .seconds(30)
    ) async throws -> [String: Any] {
        var last: LoopbackResponse?
        let finished = try await becomesTrue(within: deadline) {
            let response = try await server.get("/v1/broadcasts/\(id)", token: key)
            try #require(response.status == 200, "\(response.status): \(response.text)")
            last = response
            let status = response.object["status"] as? String
            return status != "queued" && status != "running"
        }
        let response = try #require(last)
        try #require(
            finished, "still \(response.object["status"] as? String ?? "?") after \(deadline): \(response.text)")
        return response.object
    }

    /// The titles of `user`'s inbox rows, read over HTTP.
    static func inboxTitles(_ server: TestServer, _ user: String) async throws -> [String] {
        let page = try await server.get("/v1/me/notifications?limit=100", token: try server.token(user)).object
        return (page["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    @Test("a listed audience of three users (one repeated) gets exactly one notification each, nobody else any")
    func listedAudience() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let id = try await Self.post(server, key: key, audience: #"{"userIds":["alice","bob","carol","alice"]}"#)
            let done = try await Self.finished(server, key: key, id: id)
            #expect(done["status"] as? String == "completed")
            #expect(done["audience"] as? String == "users")
            #expect(done["total"] as? Int == 3 && done["processed"] as? Int == 3)
            #expect(done["startedAt"] is String && done["completedAt"] is String)
            #expect(done["failureReason"] is NSNull)
            for user in ["alice", "bob", "carol"] {
                #expect(try await Self.inboxTitles(server, user) == ["Summer sale"], "\(user)")
            }
            #expect(try await Self.inboxTitles(server, "dave").isEmpty)
        }
    }

    @Test("\"all\" reaches every user Herald knows (2,500: devices, preferences, inbox rows), each exactly once")
    func everyUser() async throws {
        try await withServer { server in
            let store = server.app.store
            let key = try await server.apiKey()
            let now = Date()
            for index in 0..<1_000 {
                let token = String(format: "%064x", index)
                _ = try await store.upsertDevice(
                    userID: "device-\(index)", DeviceRegistration(token: token, provider: .apns, platform: .ios),
                    at: now)
                _ = try await store.updatePreferences(userID: "prefs-\(index)", initial: Preferences()) { _ in }
            }
            let inboxUsers = (0..<500).map { "inbox-\($0)" }
            try await server.publish(to: inboxUsers, key: key)

            let id = try await Self.post(server, key: key, audience: #""all""#)
            let done = try await Self.finished(server, key: key, id: id)
            #expect(done["status"] as? String == "completed")
            #expect(done["audience"] as? String == "all")
            #expect(done["total"] as? Int == 2_500 && done["processed"] as? Int == 2_500)
            for index in 0..<1_000 {
                #expect(try await store.counts(userID: "device-\(index)").unread == 1)
                #expect(try await store.counts(userID: "prefs-\(index)").unread == 1)
            }
            for user in inboxUsers {
                #expect(try await store.counts(userID: user).unread == 2, "the earlier notification and the broadcast")
            }
            #expect(try await Self.inboxTitles(server, "inbox-7") == ["Summer sale", "Your order shipped"])
        }
    }

    @Test(
        "the POST answers before any fan-out; a runner that died mid-fan-out is resumed after a restart without duplicates"
    )
    func answersFirstAndResumes() async throws {
        let first = try await TestServer.start(configure: { $0.broadcasts.isEnabled = false })
        defer { try? FileManager.default.removeItem(at: first.directory) }
        let users = (1...5).map { "user-\($0)" }
        let key = try await first.apiKey()
        let list = users.map { "\"\($0)\"" }.joined(separator: ",")
        let id = try await Self.post(first, key: key, audience: #"{"userIds":[\#(list)]}"#)

        let queued = try await first.get("/v1/broadcasts/\(id)", token: key).object
        #expect(queued["status"] as? String == "queued" && queued["processed"] as? Int == 0)
        #expect(queued["total"] as? Int == 5 && queued["startedAt"] is NSNull)
        #expect(try await Self.inboxTitles(first, "user-1").isEmpty, "nothing fanned out inside the request")

        // A runner claims it, writes one chunk of two users and dies (its lease is 60 s).
        let store = first.app.store
        let claim = try #require(try await store.claimBroadcast(now: Date(), lease: 60))
        _ = try await store.fanOutBroadcastChunk(
            id: id, claimToken: claim.claimToken, limit: 2, catalog: .standard, now: Date(), lease: 60)
        let running = try await first.get("/v1/broadcasts/\(id)", token: key).object
        #expect(running["status"] as? String == "running" && running["processed"] as? Int == 2)
        #expect(first.app.serverErrorCount == 0)
        await first.app.stop()

        // The next server on the same database, once the dead runner's lease ran out.
        try await withServer(
            configure: {
                $0.databaseURL = Self.database(of: first)
                $0.broadcasts.chunkSize = 2
            }, now: { Date().addingTimeInterval(120) }
        ) { second in
            let done = try await Self.finished(second, key: key, id: id)
            #expect(done["status"] as? String == "completed" && done["processed"] as? Int == 5)
            for user in users {
                #expect(try await second.app.store.counts(userID: user).unread == 1, "\(user) exactly once")
            }
        }
    }

    /// The database URL of `server`, for a server started after it on the same file.
    static func database(of server: TestServer) -> String {
        "sqlite:" + server.directory.appendingPathComponent("herald.db").path
    }

    @Test("a broadcast whose chunks keep failing ends failed, with the reason, after the configured attempts")
    func failure() async throws {
        let first = try await TestServer.start(configure: { $0.broadcasts.isEnabled = false })
        defer { try? FileManager.default.removeItem(at: first.directory) }
        let key = try await first.apiKey()
        let id = try await Self.post(first, key: key, audience: #"{"userIds":["alice"]}"#)
        await first.app.stop()
        // Its stored notification becomes unreadable, so every chunk fails.
        let store = try SQLiteStore(path: first.directory.appendingPathComponent("herald.db").path)
        try await store.write { db in try db.execute("UPDATE broadcasts SET template = 'not json' WHERE id = \(id)") }

        try await withServer(
            configure: {
                $0.databaseURL = Self.database(of: first)
                $0.broadcasts.maxChunkFailures = 2
            }
        ) { second in
            let done = try await Self.finished(second, key: key, id: id)
            #expect(done["status"] as? String == "failed")
            #expect(done["failureReason"] as? String == "fan_out_failed", "\(done)")
            #expect(done["processed"] as? Int == 0 && done["completedAt"] is String)
            #expect(try await Self.inboxTitles(second, "alice").isEmpty)
        }
    }

    @Test("a broadcast asking for push writes delivery rows; its notifications reach open streams")
    func pushAndLive() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let alice = try server.token("alice")
            let device = DeviceRegistration(token: String(repeating: "ab", count: 32), provider: .apns, platform: .ios)
            #expect(try await server.send("POST", "/v1/me/devices", body: device, token: alice).status == 200)
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(alice)")])
            defer { stream.close() }
            _ = try await StreamTests.next("counts", from: stream)

            let id = try await Self.post(
                server, key: key, audience: #"{"userIds":["alice","bob"]}"#, extra: #","push":{"send":true}"#)
            let created = try await StreamTests.next("notification.created", from: stream)
            #expect(created.data.contains("Summer sale"))
            #expect(try await StreamTests.next("counts", from: stream).data == #"{"unread":1,"unseen":1}"#)
            _ = try await Self.finished(server, key: key, id: id)

            let page = try await server.get("/v1/me/notifications", token: alice).object
            let notificationID = try #require((page["items"] as? [[String: Any]])?.first?["id"] as? String)
            let deliveries = try await server.get("/v1/notifications/\(notificationID)/deliveries", token: key).object
            let items = deliveries["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1)
            #expect(items.first?["status"] as? String == "queued" && items.first?["provider"] as? String == "apns")
        }
    }

    @Test("Idempotency-Key: a replay answers the same broadcast; a different body is 422")
    func idempotency() async throws {
        try await withServer(configure: { $0.broadcasts.isEnabled = false }) { server in
            let key = try await server.apiKey()
            let headers = [("Idempotency-Key", "summer-sale")]
            let json = Self.body(audience: #"{"userIds":["alice"]}"#)
            let first = try await server.send("POST", "/v1/broadcasts", json: json, token: key, headers: headers)
            let again = try await server.send("POST", "/v1/broadcasts", json: json, token: key, headers: headers)
            #expect(first.status == 202 && again.status == 202)
            #expect(again.object["id"] as? String == first.object["id"] as? String)
            #expect(again.header("Idempotent-Replayed") == "true")
            let other = Self.body(audience: #"{"userIds":["bob"]}"#)
            expectError(
                try await server.send("POST", "/v1/broadcasts", json: other, token: key, headers: headers), 422,
                "idempotency_key_reused")
            let store = server.app.store
            #expect(try await store.claimBroadcast(now: Date(), lease: 60) != nil)
            #expect(try await store.claimBroadcast(now: Date(), lease: 60) == nil, "one broadcast stored")
        }
    }

    @Test("bad broadcasts answer 400 with the error shape and store nothing; 100,000 listed ids are accepted")
    func badInput() async throws {
        try await withServer(configure: { $0.broadcasts.isEnabled = false }) { server in
            let key = try await server.apiKey()
            let tooMany = (0...100_000).map { "\"u\($0)\"" }.joined(separator: ",")
            let bad: [(json: String, code: String)] = [
                (#"{\#(Self.content)}"#, "invalid_body"),
                (#"{"recipients":["alice"],\#(Self.content)}"#, "invalid_body"),
                (Self.body(audience: #""everyone""#), "invalid_body"),
                (Self.body(audience: "5"), "invalid_body"),
                (Self.body(audience: #"{"userIds":[]}"#), "required"),
                (Self.body(audience: #"{"userIds":[\#(tooMany)]}"#), "too_many"),
                (Self.body(audience: #"{"userIds":["alice","bad id!"]}"#), "invalid"),
                (#"{"audience":"all","type":"Order Shipped","title":"t","body":"b"}"#, "invalid"),
                (#"{"audience":"all","type":"order.x","body":"b"}"#, "invalid_body"),
                (Self.body(audience: #""all""#, extra: #","push":{"send":true,"ttlSeconds":-1}"#), "out_of_range"),
                ("{", "invalid_json"),
            ]
            for (json, code) in bad {
                let response = try await server.send("POST", "/v1/broadcasts", json: json, token: key)
                expectError(response, 400, code)
            }
            let message = try await server.send(
                "POST", "/v1/broadcasts", json: Self.body(audience: #"{"userIds":["alice","bad id!"]}"#), token: key)
            #expect(
                ((message.object["error"] as? [String: Any])?["message"] as? String)?.contains("audience.userIds[1]")
                    == true)
            #expect(try await server.app.store.claimBroadcast(now: Date(), lease: 60) == nil, "nothing was stored")

            let most = (0..<100_000).map { "\"u\($0)\"" }.joined(separator: ",")
            let response = try await server.send(
                "POST", "/v1/broadcasts", json: Self.body(audience: #"{"userIds":[\#(most)]}"#), token: key)
            #expect(response.status == 202)
            #expect(response.object["total"] as? Int == 100_000)
        }
    }

    @Test("the broadcast list pages newest first with an opaque cursor; a bad cursor or limit is 400")
    func list() async throws {
        try await withServer(configure: { $0.broadcasts.isEnabled = false }) { server in
            let key = try await server.apiKey()
            var ids: [String] = []
            for user in ["alice", "bob", "carol"] {
                ids.append(try await Self.post(server, key: key, audience: #"{"userIds":["\#(user)"]}"#))
            }
            let first = try await server.get("/v1/broadcasts?limit=2", token: key).object
            let firstItems = first["items"] as? [[String: Any]] ?? []
            #expect(firstItems.compactMap { $0["id"] as? String } == [ids[2], ids[1]])
            #expect(firstItems.first?["status"] as? String == "queued" && firstItems.first?["total"] as? Int == 1)
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try await server.get("/v1/broadcasts?limit=2&cursor=\(cursor)", token: key).object
            #expect((second["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[0]])
            #expect(second["nextCursor"] is NSNull)
            expectError(try await server.get("/v1/broadcasts?cursor=nonsense", token: key), 400, "invalid_cursor")
            expectError(try await server.get("/v1/broadcasts?limit=0", token: key), 400, "invalid_limit")
            expectError(try await server.get("/v1/broadcasts"), 401, "unauthenticated")
        }
    }

    @Test("publisher auth: no key, a wrong key or a user token answer 401; an unknown id 404")
    func auth() async throws {
        try await withServer(configure: { $0.broadcasts.isEnabled = false }) { server in
            let json = Self.body(audience: #""all""#)
            expectError(try await server.send("POST", "/v1/broadcasts", json: json), 401, "unauthenticated")
            expectError(
                try await server.send("POST", "/v1/broadcasts", json: json, token: "hk_wrong"), 401, "unauthenticated")
            expectError(
                try await server.send("POST", "/v1/broadcasts", json: json, token: try server.token("alice")), 401,
                "unauthenticated")
            let key = try await server.apiKey()
            let id = try await Self.post(server, key: key, audience: #""all""#)
            expectError(try await server.get("/v1/broadcasts/\(id)"), 401, "unauthenticated")
            expectError(try await server.get("/v1/broadcasts/\(id)", token: "hk_wrong"), 401, "unauthenticated")
            expectError(try await server.get("/v1/broadcasts/no-such-broadcast", token: key), 404, "not_found")
            let queued = try await server.get("/v1/broadcasts/\(id)", token: key).object
            #expect(queued["audience"] as? String == "all" && queued["total"] is NSNull)
        }
    }
}
