import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

/// A real `herald serve` under a lowered open-files limit (`prlimit --nofile=1024:1024`), held
/// open by more idle connections than it has descriptors for.
@Suite("connection limits", .serialized)
struct ConnectionLimitTests {
    private static let idleConnections = 1_100

    private static func start(_ extra: [String]) async throws -> HeraldProcess {
        try await HeraldProcess.start(
            secret: "fd-limit-test-secret-0123456789abcdef", extraArguments: extra,
            wrapper: ["/usr/bin/prlimit", "--nofile=1024:1024"])
    }

    /// Opens idle connections (no request) with bounded concurrency; those the server closes at
    /// once still count as attempts.
    private static func holdIdle(_ count: Int, client: LoopbackHTTPClient) async -> [LoopbackConnection] {
        var held: [LoopbackConnection] = []
        for _ in 0..<count {
            if let connection = try? await client.openConnection() { held.append(connection) }
        }
        return held
    }

    @Test func moreIdleConnectionsThanDescriptorsDoNotCrashTheServer() async throws {
        let server = try await Self.start(["--max-connections-per-address", "0"])
        #expect(server.stderr.contains("connection_limit=768"), "\(server.stderr)")
        let client = LoopbackHTTPClient(port: server.port, timeout: .seconds(5))
        let held = await Self.holdIdle(Self.idleConnections, client: client)
        #expect(held.count >= 768)
        // Every slot is taken: the server is alive, and it answers again once they go.
        #expect(server.exit == nil, "\(server.stderr)")
        for connection in held { connection.close() }
        let answered = try await becomesTrue { (try? await client.request("GET", "/healthz"))?.status == 200 }
        #expect(answered)
        #expect(server.exit == nil, "\(server.stderr)")
        #expect(await server.stop() == .exited(0))
    }

    @Test func aConfiguredLimitPastTheDescriptorsIsLoweredToKeepTheReserve() async throws {
        let server = try await Self.start(["--max-connections", "20000", "--max-connections-per-address", "0"])
        #expect(server.stderr.contains("connection limit lowered to keep descriptors in reserve"), "\(server.stderr)")
        #expect(server.stderr.contains("connection_limit=768"), "\(server.stderr)")
        let client = LoopbackHTTPClient(port: server.port, timeout: .seconds(5))
        let held = await Self.holdIdle(Self.idleConnections, client: client)
        // Half of them go; the server, with its reserve intact, serves work that opens files.
        for connection in held.prefix(held.count / 2) { connection.close() }
        let answered = try await becomesTrue { (try? await client.request("GET", "/readyz"))?.status == 200 }
        #expect(answered)
        for connection in held.suffix(held.count - held.count / 2) { connection.close() }
        #expect(server.exit == nil, "\(server.stderr)")
        #expect(await server.stop() == .exited(0))
    }

    @Test func oneAddressCannotTakeEverySlot() async throws {
        let server = try await Self.start([])
        let client = LoopbackHTTPClient(port: server.port, timeout: .seconds(5))
        let held = await Self.holdIdle(Self.idleConnections, client: client)
        defer { for connection in held { connection.close() } }
        // 512 from 127.0.0.1 at most; another address is served meanwhile.
        var other = client
        other.sourceAddress = "127.0.0.2"
        #expect(try await other.request("GET", "/healthz").status == 200)
        #expect(server.exit == nil, "\(server.stderr)")
        #expect(await server.stop() == .exited(0))
    }
}
