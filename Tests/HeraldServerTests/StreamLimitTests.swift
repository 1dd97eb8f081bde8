import Foundation
import HeraldHTTPTestSupport
import Testing

/// `--max-streams-per-user`: the cap is configurable (StreamConsistencyTests has the default).
@Suite("stream limits")
struct StreamLimitTests {
    /// Reads frames until the stream ends; answers the last event before the end.
    static func lastEventBeforeEnd(_ stream: SSEConnection) async throws -> SSEEvent? {
        var last: SSEEvent?
        while let event = try await stream.next(timeout: .seconds(10)) {
            if !event.isComment { last = event }
        }
        return last
    }

    @Test func aConfiguredCapMakesTheOldestStreamRoomAndTellsItWhy() async throws {
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
