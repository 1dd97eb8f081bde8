import Foundation
import HeraldModel
import Synchronization
import Testing

@testable import HeraldKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The live stream's reconnect loop against scripted connections and a hand-driven clock:
/// no sockets and no real waiting.
@Suite("Live event source", .timeLimit(.minutes(1)))
struct LiveEventSourceTests {
    let transport = ScriptedTransport()
    let sleeper = ManualSleeper()

    func source(jitter: Double = 1, token: @escaping @Sendable () async -> String? = { "token-1" }) -> LiveEventSource {
        LiveEventSource(
            url: URL(string: "http://herald.test/v1/me/stream")!, token: token, transport: transport.transport,
            policy: ReconnectPolicy(sleep: { [sleeper] in try await sleeper.sleep($0) }, jitter: { jitter }),
            idleTimeout: .seconds(45))
    }

    /// The preamble of a new Herald stream: a comment, then a frame without data that sets the
    /// last event id to the user's newest logged event and the reconnection time.
    static func preamble(id: Int, retry: Int = 3000) -> String {
        ": herald live updates\n\nid: \(id)\nretry: \(retry)\n\n"
    }

    /// A `counts` frame as Herald writes it: no id of its own.
    static func counts(_ unread: Int, _ unseen: Int) -> String {
        "event: counts\ndata: {\"unread\":\(unread),\"unseen\":\(unseen)}\n\n"
    }

    static let created =
        #"{"id":"n-1","type":"order.shipped","category":"orders","title":"Shipped","body":"Soon","data":{"orderId":"42"},"#
        + #""deepLink":null,"hasDetail":false,"createdAt":"2026-11-29T10:00:00Z","readAt":null,"seenAt":null}"#

    @Test("created, updated, counts and reset arrive in order; heartbeats and unknown events are skipped")
    func deliversEvents() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        let connection = try #require(await connections.next())
        #expect(connection.header("Authorization") == "Bearer token-1")
        #expect(connection.header("Accept") == "text/event-stream")
        #expect(connection.header("Last-Event-ID") == nil)
        connection.open(sending: Self.preamble(id: 0))
        connection.send("id: 1\nevent: notification.created\ndata: \(Self.created)\n\n: heartbeat\n\n")
        connection.send("event: future.thing\ndata: {}\n\n")
        connection.send(
            "id: 2\nevent: notification.updated\n"
                + #"data: {"id":"n-1","readAt":"2026-11-29T10:01:00.250Z","seenAt":"2026-11-29T10:01:00Z","deleted":false}"#
                + "\n\nevent: counts\ndata: {\"unread\":0,\"unseen\":0}\n\nid: 9\nevent: reset\ndata: {}\n\n")

        let first = try await events.next()
        guard case .created(let notification) = first else {
            Issue.record("expected created, got \(String(describing: first))")
            return
        }
        #expect(notification.id == "n-1" && notification.data == ["orderId": "42"])
        #expect(notification.createdAt == Date(timeIntervalSince1970: 1_795_946_400))
        let change = NotificationChange(
            id: "n-1", readAt: Date(timeIntervalSince1970: 1_795_946_460.25),
            seenAt: Date(timeIntervalSince1970: 1_795_946_460), deleted: false)
        #expect(try await events.next() == .updated(change))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
        #expect(try await events.next() == .reset)
    }

    @Test("a known event with unreadable data becomes reset, so the app refetches")
    func unreadableEventResets() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        let connection = try #require(await connections.next())
        connection.open(sending: "id: 1\nevent: notification.created\ndata: {\"id\":1}\n\n")
        #expect(try await events.next() == .reset)
    }

    @Test("after an open stream ends it waits the server's retry, then resumes with the last dispatched event id")
    func reconnectsWithLastEventID() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()

        let first = try #require(await connections.next())
        first.open(sending: Self.preamble(id: 40, retry: 1500) + Self.counts(0, 0))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
        first.send("id: 41\nevent: notification.created\ndata: \(Self.created)\n\n" + Self.counts(1, 1))
        guard case .created = try await events.next() else {
            Issue.record("expected created")
            return
        }
        #expect(try await events.next() == .counts(Counts(unread: 1, unseen: 1)))
        // An event cut off by the drop does not move the id.
        first.send("id: 42\nevent: notification.updated\ndata: {\"id\":\"n-1\",")
        first.server.finish()

        #expect(await sleeps.next() == .milliseconds(1500))
        #expect(transport.openedCount == 1, "nothing reconnects before the clock says so")
        sleeper.wake()
        let second = try #require(await connections.next())
        #expect(second.header("Last-Event-ID") == "41")
        // A resumed stream's preamble has no id of its own; the replay follows.
        second.open(
            sending: ": herald live updates\n\nretry: 3000\n\nid: 42\nevent: notification.updated\n"
                + #"data: {"id":"n-1","readAt":null,"seenAt":null,"deleted":true}"# + "\n\n")
        #expect(try await events.next() == .updated(NotificationChange(id: "n-1", deleted: true)))
    }

    @Test("a drop before any notification event resumes from the id of the server's preamble, with no reset")
    func resumesFromThePreambleID() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()

        let first = try #require(await connections.next())
        first.open(sending: Self.preamble(id: 17) + Self.counts(0, 0))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
        first.server.finish()
        #expect(await sleeps.next() == .seconds(3))
        sleeper.wake()

        let second = try #require(await connections.next())
        #expect(second.header("Last-Event-ID") == "17")
        second.open(sending: "retry: 3000\n\nid: 18\nevent: notification.created\ndata: \(Self.created)\n\n")
        let next = try await events.next()
        guard case .created(let notification) = next else {
            Issue.record("expected the replayed created, got \(String(describing: next))")
            return
        }
        #expect(notification.id == "n-1")
    }

    @Test("a stream that reopens without any event id after one had opened yields reset, once, so the app refetches")
    func reopeningWithoutAnIDResets() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()

        // A server that sends no id before its first event (or a drop before its first frame).
        let first = try #require(await connections.next())
        first.open(sending: ": herald live updates\n\nretry: 3000\n\n" + Self.counts(0, 0))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)), "no reset on the first stream")
        first.server.finish()
        _ = await sleeps.next()
        sleeper.wake()
        // An attempt that fails before opening changes nothing.
        let refused = try #require(await connections.next())
        #expect(refused.header("Last-Event-ID") == nil)
        refused.refuse(503, code: "unavailable")
        _ = await sleeps.next()
        sleeper.wake()

        let second = try #require(await connections.next())
        #expect(second.header("Last-Event-ID") == nil)
        second.open(sending: Self.preamble(id: 5) + Self.counts(1, 1))
        #expect(try await events.next() == .reset, "when the new stream opens: a refetch then misses nothing")
        #expect(try await events.next() == .counts(Counts(unread: 1, unseen: 1)))
    }

    @Test("attempts that fail in a row back off with jitter up to the cap; an opened stream starts over")
    func backsOff() async throws {
        var events = source(jitter: 0.5).events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()

        let failures: [@Sendable (ScriptedTransport.Connection) -> Void] = [
            { $0.server.finish(throwing: URLError(.cannotConnectToHost)) },
            { $0.refuse(503, code: "unavailable") },
            { $0.server.finish(throwing: URLError(.timedOut)) },
            { $0.refuse(429, code: "slow_down") },
            { $0.server.finish(throwing: URLError(.networkConnectionLost)) },
            { $0.server.finish(throwing: URLError(.notConnectedToInternet)) },
        ]
        var waits: [Duration] = []
        for fail in failures {
            fail(try #require(await connections.next()))
            waits.append(try #require(await sleeps.next()))
            sleeper.wake()
        }
        // 3 s doubling, each spread to 75 % by the jitter, capped at 60 s before the spread.
        #expect(waits == [2.25, 4.5, 9, 18, 36, 45].map { Duration.milliseconds(Int($0 * 1000)) })

        let healthy = try #require(await connections.next())
        healthy.open(sending: "event: counts\ndata: {\"unread\":0,\"unseen\":0}\n\n")
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
        healthy.server.finish()
        #expect(await sleeps.next() == .seconds(3), "after an open stream: the retry again, no backoff")
    }

    @Test("a stream the server closed as replaced ends quietly and never reconnects")
    func replacedEnds() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        let connection = try #require(await connections.next())
        connection.open(sending: Self.preamble(id: 3) + Self.counts(0, 0))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
        connection.send("event: closed\ndata: {\"reason\":\"replaced\"}\n\n")
        connection.server.finish()
        #expect(try await events.next() == nil)
        #expect(sleeper.requested.isEmpty)
        #expect(transport.openedCount == 1)
    }

    @Test("a stream the server closed as expired reconnects, and the refused token then ends it")
    func expiredReconnects() async throws {
        let stream = source().events()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()
        let first = try #require(await connections.next())
        first.open(sending: Self.preamble(id: 3))
        first.send("event: closed\ndata: {\"reason\":\"expired\"}\n\n")
        first.server.finish()
        _ = await sleeps.next()
        sleeper.wake()
        try #require(await connections.next()).refuse(401, code: "unauthenticated")
        let error = await #expect(throws: HeraldAPIError.self) {
            for try await _ in stream {}
        }
        #expect(error?.kind == .unauthenticated)
        #expect(transport.openedCount == 2)
    }

    @Test("401 ends the stream with unauthenticated and never reconnects")
    func unauthenticatedEnds() async throws {
        let stream = source().events()
        var connections = transport.connections.makeAsyncIterator()
        try #require(await connections.next()).refuse(401, code: "unauthenticated")
        let error = await #expect(throws: HeraldAPIError.self) {
            for try await _ in stream {}
        }
        #expect(error?.kind == .unauthenticated)
        #expect(error?.code == "unauthenticated")
        #expect(sleeper.requested.isEmpty)
        #expect(transport.openedCount == 1)
    }

    @Test("another 4xx ends the stream with rejected; no token ends it before connecting")
    func otherEnds() async throws {
        let stream = source().events()
        var connections = transport.connections.makeAsyncIterator()
        try #require(await connections.next()).refuse(403, code: "forbidden")
        let rejected = await #expect(throws: HeraldAPIError.self) {
            for try await _ in stream {}
        }
        #expect(rejected?.kind == .rejected && rejected?.code == "forbidden")

        let guest = source(token: { nil }).events()
        let error = await #expect(throws: HeraldAPIError.self) {
            for try await _ in guest {}
        }
        #expect(error?.kind == .unauthenticated)
        #expect(transport.openedCount == 1, "the guest stream never connected")
    }

    @Test("every connection asks for the current token")
    func freshToken() async throws {
        let tokens = Mutex(["token-a", "token-b"])
        var events = source(token: { tokens.withLock { $0.removeFirst() } }).events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()
        let first = try #require(await connections.next())
        #expect(first.header("Authorization") == "Bearer token-a")
        first.open(sending: Self.preamble(id: 0))
        first.server.finish()
        _ = await sleeps.next()
        sleeper.wake()
        let second = try #require(await connections.next())
        #expect(second.header("Authorization") == "Bearer token-b")
        second.open(sending: Self.counts(0, 0))
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
    }

    @Test("a Last-Event-ID the server refuses is dropped, and the stream that opens without it yields reset")
    func refusedLastEventID() async throws {
        var events = source().events().makeAsyncIterator()
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()
        let first = try #require(await connections.next())
        first.open(sending: Self.preamble(id: 77) + Self.counts(0, 0))
        _ = try await events.next()
        first.server.finish()
        _ = await sleeps.next()
        sleeper.wake()
        let second = try #require(await connections.next())
        #expect(second.header("Last-Event-ID") == "77")
        second.refuse(400, code: "invalid_last_event_id")
        _ = await sleeps.next()
        sleeper.wake()
        let third = try #require(await connections.next())
        #expect(third.header("Last-Event-ID") == nil)
        third.open(sending: Self.preamble(id: 3) + Self.counts(0, 0))
        #expect(try await events.next() == .reset)
        #expect(try await events.next() == .counts(Counts(unread: 0, unseen: 0)))
    }

    @Test("when the consumer stops, the open connection is closed and nothing reconnects")
    func cancellationCloses() async throws {
        let stream = source().events()
        let consumer = Task {
            for try await _ in stream {}
        }
        var connections = transport.connections.makeAsyncIterator()
        let connection = try #require(await connections.next())
        connection.open(sending: ": hello\n\n")
        consumer.cancel()
        var closed = connection.closed.makeAsyncIterator()
        #expect(await closed.next() != nil, "the connection was closed")
        _ = await consumer.result
        #expect(sleeper.requested.isEmpty)
        #expect(transport.openedCount == 1)
    }

    @Test("a consumer that stops while waiting to reconnect ends the wait and the stream")
    func cancellationDuringWait() async throws {
        let stream = source().events()
        let consumer = Task {
            for try await _ in stream {}
        }
        var connections = transport.connections.makeAsyncIterator()
        var sleeps = sleeper.requests.makeAsyncIterator()
        try #require(await connections.next()).server.finish(throwing: URLError(.cannotConnectToHost))
        _ = await sleeps.next()
        consumer.cancel()
        _ = await consumer.result
        #expect(transport.openedCount == 1)
    }
}
