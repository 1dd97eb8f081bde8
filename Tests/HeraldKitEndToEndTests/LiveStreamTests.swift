import Foundation
import HeraldKit
import HeraldModel
import HeraldTestSupport
import Testing

/// The live stream through `HeraldClient.liveEvents()` against the real `herald` executable:
/// events as the publisher and other devices cause them, the end of a session, and resuming
/// after the server process was killed.
@Suite("Live stream (end to end)", .serialized)
struct LiveStreamTests {
    static let noCounts: @Sendable (LiveEvent) -> Bool = { if case .counts = $0 { false } else { true } }

    @Test("a published notification arrives as created, followed by the new counts")
    func created() async throws {
        try await withEndToEndServer { server in
            let recorder = LiveEventRecorder(try await server.client(user: "alice").liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)), "counts on connect")

            let id = try await server.publish(
                to: "alice", type: "order.shipped", title: "Shipped", data: ["orderId": "42"], deepLink: "/orders/42")
            guard case .created(let notification) = try await recorder.next() else {
                Issue.record("expected created")
                return
            }
            #expect(notification.id == id && notification.title == "Shipped" && notification.category == "orders")
            #expect(notification.data == ["orderId": "42"] && notification.deepLink == "/orders/42")
            #expect(notification.readAt == nil && abs(notification.createdAt.timeIntervalSinceNow) < 120)
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 1, unseen: 1)) }) != nil)
        }
    }

    @Test("reads and deletes on another device arrive as updated and counts; seen-all as counts only")
    func updated() async throws {
        try await withEndToEndServer { server in
            let token = try await server.token(for: "alice")
            let recorder = LiveEventRecorder(server.client(token: token).liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)), "subscribed")
            let other = server.client(token: token)
            let first = try await server.publish(to: "alice")
            let second = try await server.publish(to: "alice")
            #expect(
                try await recorder.next(where: { if case .created(let n) = $0 { n.id == second } else { false } })
                    != nil)
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 2, unseen: 2)) }) != nil)

            let read = try await other.markRead(id: first)
            #expect(
                try await recorder.next(where: Self.noCounts)
                    == .updated(NotificationChange(id: first, readAt: read.readAt, seenAt: read.seenAt, deleted: false))
            )
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 1, unseen: 1)) }) != nil)

            _ = try await other.markAllSeen()
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 1, unseen: 0)) }) != nil)

            try await other.delete(id: second)
            guard case .updated(let change) = try await recorder.next(where: Self.noCounts) else {
                Issue.record("expected updated")
                return
            }
            #expect(change.id == second && change.deleted && change.readAt == nil && change.seenAt != nil)
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 0, unseen: 0)) }) != nil)
        }
    }

    @Test("a token the server refuses ends the stream with unauthenticated")
    func unauthenticated() async throws {
        try await withEndToEndServer { server in
            let recorder = LiveEventRecorder(server.client(token: "expired-or-forged").liveEvents())
            do {
                _ = try await recorder.next()
                Issue.record("the stream should have ended with an error")
            } catch let error as HeraldAPIError {
                #expect(error.kind == .unauthenticated && error.status == 401)
            }
        }
    }

    @Test("a stream silent for longer than the idle timeout counts as dropped and is replaced")
    func idleTimeout() async throws {
        try await withEndToEndServer { server in
            let gate = ReconnectGate()
            let client = server.client(
                token: try await server.token(for: "alice"), streamIdleTimeout: .seconds(1), reconnect: gate.policy)
            let recorder = LiveEventRecorder(client.liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)))
            // The server's heartbeat comes every 15 s: after 1 s of silence the client gives up on
            // the connection and waits the server's retry, as after any drop of an open stream.
            #expect(try await gate.nextRequest() == .seconds(3))
            gate.open()
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)), "connected again")
        }
    }

    @Test("ending the iteration closes the connection: the server sees the stream go")
    func cancellationCloses() async throws {
        try await withEndToEndServer { server in
            let recorder = LiveEventRecorder(try await server.client(user: "alice").liveEvents())
            _ = try await recorder.next()
            #expect(try await liveStreams(server) == 1)
            recorder.cancel()
            // Qualified: this target's own `eventually` waits on Observation, not on a poll.
            try await HeraldTestSupport.eventually("the server sees the stream close") {
                try await liveStreams(server) == 0
            }
        }
    }

    @Test(
        "after the server is killed and restarted on the same port and database, the stream backs off, then resumes with Last-Event-ID and loses nothing"
    )
    func resumesAfterRestart() async throws {
        try await withEndToEndServer { server in
            let token = try await server.token(for: "alice")
            let gate = ReconnectGate()
            let recorder = LiveEventRecorder(server.client(token: token, reconnect: gate.policy).liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)))
            let first = try await server.publish(to: "alice", title: "First")
            #expect(try await recorder.next(where: Self.noCounts).map(Self.createdID) == first)
            #expect(try await recorder.next(where: { $0 == .counts(Counts(unread: 1, unseen: 1)) }) != nil)

            await server.crash()
            // The dropped stream waits the server's retry (3 s), held by the gate.
            #expect(try await gate.nextRequest() == .seconds(3))
            gate.open()
            // Nothing listens: the attempt fails and the wait grows (no jitter here).
            #expect(try await gate.nextRequest() == .seconds(3))
            gate.open()
            #expect(try await gate.nextRequest() == .seconds(6))

            // While the client waits, the server comes back and things happen without it.
            try await server.restart()
            let second = try await server.publish(to: "alice", title: "Second")
            let read = try await server.client(token: token).markRead(id: first)
            gate.open()

            // Only Last-Event-ID makes the server replay: what was missed arrives, in order, once.
            #expect(try await recorder.next().map(Self.createdID) == second)
            #expect(
                try await recorder.next()
                    == .updated(NotificationChange(id: first, readAt: read.readAt, seenAt: read.seenAt, deleted: false))
            )
            #expect(try await recorder.next() == .counts(Counts(unread: 1, unseen: 1)))
        }
    }

    @Test(
        "after the server is killed and restarted before any notification reached the client, what was published while it was away arrives, once, without a reset"
    )
    func resumesAfterRestartBeforeAnyNotification() async throws {
        try await withEndToEndServer { server in
            let token = try await server.token(for: "alice")
            // Alice has history the app already loaded: the stream must resume after it, not from 0.
            let earlier = try await server.publish(to: "alice", title: "Earlier")
            let gate = ReconnectGate()
            let recorder = LiveEventRecorder(server.client(token: token, reconnect: gate.policy).liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 1, unseen: 1)), "subscribed; no event yet")

            await server.crash()
            #expect(try await gate.nextRequest() == .seconds(3))
            // While the client waits, the server comes back and notifications are published without it.
            try await server.restart()
            let first = try await server.publish(to: "alice", title: "First")
            let second = try await server.publish(to: "alice", title: "Second")
            gate.open()

            // The stream's opening id makes the server replay: both arrive, in order, and nothing older.
            let replayed = [try await recorder.next(), try await recorder.next()].map { $0.map(Self.createdID) }
            #expect(replayed == [first, second] && !replayed.contains(earlier))
            #expect(try await recorder.next() == .counts(Counts(unread: 3, unseen: 3)))
        }
    }

    @Test("with real (shortened) waits, the client finds the restarted server by itself")
    func reconnectsByItself() async throws {
        try await withEndToEndServer { server in
            let token = try await server.token(for: "alice")
            let recorder = LiveEventRecorder(server.client(token: token).liveEvents())
            defer { recorder.cancel() }
            #expect(try await recorder.next() == .counts(Counts(unread: 0, unseen: 0)), "subscribed")
            let first = try await server.publish(to: "alice", title: "First")
            #expect(try await recorder.next(where: Self.noCounts).map(Self.createdID) == first)

            await server.crash()
            try await server.restart()
            let second = try await server.publish(to: "alice", title: "Second")
            // Replayed or live, depending on when the client got back: either way once, in order.
            #expect(try await recorder.next(where: Self.noCounts).map(Self.createdID) == second)
        }
    }

    /// The id of a created event, or `"not created: <event>"`.
    static func createdID(_ event: LiveEvent) -> String {
        if case .created(let notification) = event { return notification.id }
        return "not created: \(event)"
    }
}

/// The server's `herald_live_streams` gauge.
private func liveStreams(_ server: EndToEndServer) async throws -> Int? {
    let metrics = try await server.publisherRequest("GET", "/metrics").text
    let line = metrics.split(separator: "\n").first { $0.hasPrefix("herald_live_streams ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "").map { Int($0) } }
}
