import Foundation
import HeraldHTTPTestSupport
import Synchronization
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_900_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// The real time, moved forward on demand: for a server and the provider look-alikes that must
/// agree on the time (provider tokens are checked against it) while a test skips hours ahead.
final class OffsetClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

@Suite("Live updates under concurrency, expiry and limits")
struct StreamConsistencyTests {
    static func open(_ server: TestServer, _ user: String) async throws -> SSEConnection {
        try await server.client.openStream(
            "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token(user))")])
    }

    @Test("concurrent writes for one user lose no event, and the last counts frame is the final count")
    func concurrentWritesLoseNothing() async throws {
        try await withServer { server in
            let stream = try await Self.open(server, "alice")
            defer { stream.close() }
            let key = try await server.apiKey()
            let token = try server.token("alice")
            let ids = try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<40 {
                    group.addTask { try await server.publish(to: ["alice"], title: "n\(index)", key: key) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in ids.prefix(20) {
                    group.addTask { _ = try await server.send("POST", "/v1/me/notifications/\(id)/read", token: token) }
                }
                try await group.waitForAll()
            }
            let final = try await server.get("/v1/me/counts", token: token).object as? [String: Int]
            var created: Set<String> = []
            var updated = 0
            var lastCounts: [String: Int]?
            while created.count < 40 || updated < 20 || lastCounts != final {
                let next: SSEEvent?
                do {
                    next = try await stream.nextEvent(timeout: .seconds(5))
                } catch {
                    Issue.record(
                        "stream went quiet: \(created.count) created, \(updated) updated, counts \(String(describing: lastCounts)) vs \(String(describing: final))"
                    )
                    throw error
                }
                let event = try #require(next, "stream ended")
                switch event.event {
                case "notification.created":
                    let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
                    created.insert(object?["id"] as? String ?? "")
                case "notification.updated": updated += 1
                case "counts":
                    lastCounts = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Int]
                default: break
                }
            }
            #expect(created == Set(ids))
            #expect(lastCounts == ["unread": 20, "unseen": 20])
        }
    }

    @Test(
        "a stream ends within a second of its token's expiry with event: closed, reason expired; the reconnect meets 401"
    )
    func streamEndsAtTokenExpiry() async throws {
        let clock = ManualClock()
        // The heartbeat stays at 15 s: the expiry sweep, every second, ends the stream.
        try await withServer(now: { clock.now }) { server in
            let token = try server.app.userToken(for: "alice", ttl: 60)
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(token)")])
            defer { stream.close() }
            #expect(try await stream.nextEvent(timeout: .seconds(5))?.event == "counts")
            clock.advance(by: 61)
            var events: [SSEEvent] = []
            while let event = try await stream.next(timeout: .seconds(5)) {
                if !event.isComment { events.append(event) }
            }
            #expect(events == [SSEEvent(event: "closed", data: #"{"reason":"expired"}"#)])
            expectError(try await server.get("/v1/me/stream", token: token), 401, "unauthenticated")
        }
    }

    @Test("one user holds at most 16 streams: a new one closes their oldest with event: closed, reason replaced")
    func streamsPerUserAreCapped() async throws {
        try await withServer { server in
            var streams: [SSEConnection] = []
            for _ in 0..<17 {
                let stream = try await Self.open(server, "alice")
                #expect(try await stream.nextEvent(timeout: .seconds(5))?.event == "counts")
                streams.append(stream)
            }
            defer { for stream in streams { stream.close() } }
            // The oldest stream ends (reading past its end answers nil; an open one would time out).
            var last: SSEEvent?
            while let event = try await streams[0].next(timeout: .seconds(5)) {
                if !event.isComment { last = event }
            }
            #expect(last == SSEEvent(event: "closed", data: #"{"reason":"replaced"}"#))
            try await server.publish(to: ["alice"])
            #expect(try await streams[16].nextEvent(timeout: .seconds(5))?.event == "notification.created")
        }
    }

    @Test("a client more than 500 events behind gets one reset event instead of a partial replay")
    func tooFarBehindResets() async throws {
        try await withServer { server in
            let key = try await server.apiKey()
            let first = try await Self.open(server, "alice")
            try await server.publish(to: ["alice"], key: key)
            let seen = try #require(
                try await first.nextEvent(timeout: .seconds(5)) { $0.event == "notification.created" })
            first.close()
            for index in 0..<501 { try await server.publish(to: ["alice"], title: "m\(index)", key: key) }
            let headers = [
                ("Authorization", "Bearer \(try server.token("alice"))"), ("Last-Event-ID", try #require(seen.id)),
            ]
            let resumed = try await server.client.openStream("/v1/me/stream", headers: headers)
            defer { resumed.close() }
            let reset = try #require(try await resumed.nextEvent(timeout: .seconds(5)))
            #expect(reset.event == "reset")
            #expect(try await resumed.nextEvent(timeout: .seconds(5))?.event == "counts", "no partial replay")

            let near = try await server.client.openStream(
                "/v1/me/stream", headers: [headers[0], ("Last-Event-ID", String(Int64(reset.id ?? "0")! - 2))])
            defer { near.close() }
            let replayed = try #require(try await near.nextEvent(timeout: .seconds(5)))
            #expect(replayed.event == "notification.created" && replayed.data.contains("m499"))
        }
    }
}

extension SSEConnection {
    /// The next non-comment event that satisfies `match`.
    func nextEvent(timeout: Duration, where match: (SSEEvent) -> Bool) async throws -> SSEEvent? {
        while let event = try await nextEvent(timeout: timeout) {
            if match(event) { return event }
        }
        return nil
    }
}
