import Foundation
import HeraldHTTP
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// `--connection-memory`: the memory each connection holds while open, which bounds the request
/// head (431 past it) and is most of what an idle event stream costs.
@Suite("connection memory")
struct ConnectionMemoryTests {
    /// A request head of about `bytes` bytes: a header line padded to that size.
    private static func head(_ bytes: Int, token: String) -> [UInt8] {
        let start = "GET /v1/me/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nX-Pad: "
        let padding = String(repeating: "p", count: max(0, bytes - start.utf8.count - 4))
        return Array((start + padding + "\r\n\r\n").utf8)
    }

    @Test("the default holds heads up to about 35 KiB; a larger one is 431 and the server serves on")
    func defaultHeadLimit() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try server.token("head-user")
        #expect(HeraldConfiguration().connectionMemoryBytes == 36 * 1024)
        let fits = try await server.client.rawRequest(Self.head(34 * 1024, token: token))
        #expect(fits.status == 200, "\(fits.body)")
        let tooLarge = try await server.client.rawRequest(Self.head(37 * 1024, token: token))
        #expect(tooLarge.status == 431)
        #expect(try await server.get("/v1/me/notifications", token: token).status == 200)
    }

    @Test("a lowered limit refuses what the default takes, and streams open under it")
    func loweredLimit() async throws {
        let server = try await TestServer.start(configure: { $0.connectionMemoryBytes = 4096 })
        defer { Task { await server.stop() } }
        let token = try server.token("head-user")
        #expect(try await server.client.rawRequest(Self.head(1024, token: token)).status == 200)
        #expect(try await server.client.rawRequest(Self.head(6 * 1024, token: token)).status == 431)
        // The stream's head is written outside the library (StreamSockets), whatever its memory.
        let stream = try await server.client.openStream(
            "/v1/me/stream", headers: [("Authorization", "Bearer \(token)")])
        defer { stream.close() }
        #expect(stream.status == 200)
        var events: [String] = []
        while let event = try await stream.nextEvent(), events.count < 4 {
            events.append(event.event ?? "")
            if event.event == "counts" { break }
        }
        #expect(events.last == "counts", "\(events)")
    }

    @Test("--connection-memory and HERALD_CONNECTION_MEMORY; out of range exits 2")
    func settings() async throws {
        let defaults = try ServeCommand.configuration(ServeCommand.spec.parse([], environment: [:]))
        #expect(defaults.connectionMemoryBytes == 36864)
        let twin = try ServeCommand.configuration(
            ServeCommand.spec.parse([], environment: ["HERALD_CONNECTION_MEMORY": "16384"]))
        #expect(twin.connectionMemoryBytes == 16384)
        let flagged = try ServeCommand.configuration(
            ServeCommand.spec.parse(
                ["--connection-memory", "8192"], environment: ["HERALD_CONNECTION_MEMORY": "16384"]))
        #expect(flagged.connectionMemoryBytes == 8192)
        for bad in ["4095", "1048577", "lots"] {
            let result = await CLITests.run(["serve", "--connection-memory", bad])
            #expect(result.status == 2, "\(bad)")
            #expect(result.err.first?.contains("connection-memory") == true, "\(result.err)")
        }
        let help = await CLITests.run(["serve", "--help"])
        #expect(help.out.joined().contains("--connection-memory"))
    }
}
