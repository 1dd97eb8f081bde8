import Foundation
import HeraldHTTPTestSupport
import Testing

@Suite("Live updates (SSE)")
struct StreamTests {
    /// Reads events until one of `kind` arrives, skipping heartbeats and others.
    static func next(_ kind: String, from stream: SSEConnection) async throws -> SSEEvent {
        while true {
            let event = try #require(try await stream.next(timeout: .seconds(5)), "stream ended before \(kind)")
            if !event.isComment && event.event == kind { return event }
        }
    }

    @Test("a created notification reaches the user's open stream, and only that user's")
    func createdReachesStream() async throws {
        try await withServer { server in
            let alice = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("alice"))")])
            let bob = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("bob"))")])
            defer {
                alice.close()
                bob.close()
            }
            #expect(alice.status == 200)
            let initial = try await Self.next("counts", from: alice)
            #expect(initial.data == #"{"unread":0,"unseen":0}"#)
            _ = try await Self.next("counts", from: bob)

            let id = try await server.publish(to: ["alice"])[0]
            let created = try await Self.next("notification.created", from: alice)
            #expect(created.id != nil)
            let object = try JSONSerialization.jsonObject(with: Data(created.data.utf8)) as? [String: Any]
            #expect(object?["id"] as? String == id)
            #expect(try await Self.next("counts", from: alice).data == #"{"unread":1,"unseen":1}"#)

            _ = try await server.send("POST", "/v1/me/notifications/\(id)/read", token: try server.token("alice"))
            let updated = try await Self.next("notification.updated", from: alice)
            #expect(updated.data.contains(id))
            #expect(try await Self.next("counts", from: alice).data == #"{"unread":0,"unseen":0}"#)

            try await server.publish(to: ["bob"], title: "for bob")
            let bobs = try await Self.next("notification.created", from: bob)
            #expect(bobs.data.contains("for bob"))
        }
    }

    @Test("Last-Event-ID resumes: missed events are replayed in order, then live ones follow")
    func resume() async throws {
        try await withServer { server in
            let auth = ("Authorization", "Bearer \(try server.token("alice"))")
            let first = try await server.client.openStream("/v1/me/stream", headers: [auth])
            let key = try await server.apiKey()
            let a = try await server.publish(to: ["alice"], title: "a", key: key)[0]
            let seen = try await Self.next("notification.created", from: first)
            first.close()
            let lastID = try #require(seen.id)

            let b = try await server.publish(to: ["alice"], title: "b", key: key)[0]
            let c = try await server.publish(to: ["alice"], title: "c", key: key)[0]
            let resumed = try await server.client.openStream(
                "/v1/me/stream", headers: [auth, ("Last-Event-ID", lastID)])
            defer { resumed.close() }
            let replayB = try await Self.next("notification.created", from: resumed)
            let replayC = try await Self.next("notification.created", from: resumed)
            #expect(replayB.data.contains(b) && replayC.data.contains(c))
            #expect(!replayB.data.contains(a))
            let d = try await server.publish(to: ["alice"], title: "d", key: key)[0]
            #expect(try await Self.next("notification.created", from: resumed).data.contains(d))

            expectError(
                try await server.get(
                    "/v1/me/stream", token: try server.token("alice"), headers: [("Last-Event-ID", "abc")]), 400,
                "invalid_last_event_id")
        }
    }

    @Test(
        "a new stream starts with the id of the user's newest logged event, so a drop before any notification resumes without a gap"
    )
    func freshStreamCarriesResumePoint() async throws {
        try await withServer { server in
            let auth = ("Authorization", "Bearer \(try server.token("alice"))")
            let key = try await server.apiKey()
            try await server.publish(to: ["alice"], title: "before", key: key)
            let probe = try await server.client.openStream("/v1/me/stream", headers: [auth, ("Last-Event-ID", "0")])
            let newest = try #require(try await Self.next("notification.created", from: probe).id)
            probe.close()

            let first = try await server.client.openStream("/v1/me/stream", headers: [auth])
            // The preamble dispatches nothing: the first event is counts, which has no id of its own.
            let counts = try #require(try await first.nextEvent(timeout: .seconds(5)))
            #expect(counts.event == "counts" && counts.id == nil)
            #expect(await first.lastEventID == newest, "the preamble carries the newest logged sequence")
            let bob = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("bob"))")])
            _ = try await Self.next("counts", from: bob)
            #expect(await bob.lastEventID == "0", "a user without events starts at 0")
            bob.close()
            // The connection drops before any notification event arrived; things happen meanwhile.
            let resumeID = await first.lastEventID
            first.close()
            let missed = try await server.publish(to: ["alice"], title: "missed", key: key)[0]

            let resumed = try await server.client.openStream(
                "/v1/me/stream", headers: [auth, ("Last-Event-ID", resumeID)])
            defer { resumed.close() }
            let replayed = try await Self.next("notification.created", from: resumed)
            #expect(replayed.data.contains(missed) && !replayed.data.contains("before"))
        }
    }

    @Test("a heartbeat comment is sent at the configured interval")
    func heartbeat() async throws {
        try await withServer(configure: { $0.heartbeatInterval = .milliseconds(50) }) { server in
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("alice"))")])
            defer { stream.close() }
            var sawHeartbeat = false
            for _ in 0..<10 where !sawHeartbeat {
                let event = try #require(try await stream.next(timeout: .seconds(5)))
                sawHeartbeat = event.isComment
            }
            #expect(sawHeartbeat)
        }
    }
}
