import Foundation
import HeraldHTTPTestSupport
import Synchronization
import Testing

/// How a stream ends: at its token's expiry (within about a second), or when the user opened more
/// streams than the server keeps; each time with a final `event: closed` saying why.
@Suite("stream limits")
struct StreamLimitTests {
    final class TestNow: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// Reads frames until the stream ends; answers the last event before the end.
    static func lastEventBeforeEnd(_ stream: SSEConnection) async throws -> SSEEvent? {
        var last: SSEEvent?
        while let event = try await stream.next(timeout: .seconds(10)) {
            if !event.isComment { last = event }
        }
        return last
    }

    @Test func aStreamEndsWhenItsTokenExpires() async throws {
        let clock = TestNow()
        try await withServer(now: { clock.now }) { server in
            let token = try server.app.userToken(for: "alice", ttl: 60)
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(token)")])
            defer { stream.close() }
            _ = try await StreamTests.next("counts", from: stream)
            clock.advance(61)
            // The expiry sweep runs every second (not at the next 15 s heartbeat).
            let last = try await Self.lastEventBeforeEnd(stream)
            #expect(last?.event == "closed")
            #expect(last?.data == #"{"reason":"expired"}"#)
            let again = try await server.get("/v1/me/counts", token: token)
            #expect(again.status == 401)
        }
    }

    @Test func theOldestStreamMakesRoomAndIsToldWhy() async throws {
        try await withServer { configuration in
            configuration.maxStreamsPerUser = 2
        } _: { server in
            let auth = ("Authorization", "Bearer \(try server.token("alice"))")
            let first = try await server.client.openStream("/v1/me/stream", headers: [auth])
            _ = try await StreamTests.next("counts", from: first)
            let second = try await server.client.openStream("/v1/me/stream", headers: [auth])
            _ = try await StreamTests.next("counts", from: second)
            let third = try await server.client.openStream("/v1/me/stream", headers: [auth])
            defer {
                second.close()
                third.close()
            }
            _ = try await StreamTests.next("counts", from: third)
            let last = try await Self.lastEventBeforeEnd(first)
            #expect(last?.event == "closed")
            #expect(last?.data == #"{"reason":"replaced"}"#)
            // The two newest stay live.
            try await server.publish(to: ["alice"])
            _ = try await StreamTests.next("notification.created", from: second)
            _ = try await StreamTests.next("notification.created", from: third)
        }
    }
}
