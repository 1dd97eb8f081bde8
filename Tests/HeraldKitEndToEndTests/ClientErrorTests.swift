import Foundation
import HeraldKit
import HeraldModel
import Testing

/// The typed errors, each provoked for real.
@Suite("Live client errors (end to end)", .serialized)
struct ClientErrorTests {
    /// The `HeraldAPIError` `body` throws; records an issue when it throws something else.
    static func apiError(_ body: () async throws -> Void) async -> HeraldAPIError? {
        do {
            try await body()
            Issue.record("expected a HeraldAPIError, nothing was thrown")
        } catch let error as HeraldAPIError {
            return error
        } catch {
            Issue.record("expected a HeraldAPIError, got \(error)")
        }
        return nil
    }

    @Test("a token the server refuses is unauthenticated (401); no token is unauthenticated without a request")
    func unauthenticated() async throws {
        try await withEndToEndServer { server in
            let refused = await Self.apiError { _ = try await server.client(token: "not-a-token").counts() }
            #expect(refused?.kind == .unauthenticated && refused?.status == 401 && refused?.code == "unauthenticated")
            let guest = await Self.apiError { _ = try await server.client(token: nil).counts() }
            #expect(guest?.kind == .unauthenticated && guest?.status == 401)
        }
    }

    @Test("an unknown id is notFound; bad input is rejected with the server's code")
    func notFoundAndRejected() async throws {
        try await withEndToEndServer { server in
            let client = try await server.client(user: "alice")
            for call: @Sendable () async throws -> Void in [
                { _ = try await client.notification(id: "nope") },
                { _ = try await client.markRead(id: "nope") },
                { _ = try await client.markOpened(id: "nope") },
                { try await client.delete(id: "nope") },
            ] {
                let error = await Self.apiError(call)
                #expect(error?.kind == .notFound && error?.status == 404 && error?.code == "not_found")
            }
            let category = await Self.apiError { _ = try await client.notifications(category: "nonsense") }
            #expect(category?.kind == .rejected && category?.status == 400 && category?.code == "unknown_category")
            let limit = await Self.apiError { _ = try await client.notifications(limit: 0) }
            #expect(limit?.code == "invalid_limit" && limit?.message.contains("limit") == true)
        }
    }

    @Test("a port nobody listens on is offline")
    func offline() async throws {
        let port = try SilentServer.closedPort()
        let client = HeraldClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: { "t" })
        let error = await Self.apiError { _ = try await client.counts() }
        #expect(error?.kind == .offline)
    }

    @Test("a server that takes the connection and never answers is a timeout")
    func timeout() async throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let client = HeraldClient(
            baseURL: URL(string: "http://127.0.0.1:\(silent.port)")!, requestTimeout: .seconds(1), token: { "t" })
        let started = ContinuousClock.now
        let error = try await within(.seconds(20), "the timeout") {
            await Self.apiError { _ = try await client.counts() }
        }
        #expect(error?.kind == .timeout)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("cancelling a request that waits on a silent server ends it at once with CancellationError")
    func cancellation() async throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        let client = HeraldClient(
            baseURL: URL(string: "http://127.0.0.1:\(silent.port)")!, requestTimeout: .seconds(30), token: { "t" })
        let request = Task { try await client.counts() }
        try await within(.seconds(10), "the request to connect") { await silent.nextConnection() }
        request.cancel()
        let result = try await within(.seconds(10), "the cancelled request to end") { await request.result }
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
