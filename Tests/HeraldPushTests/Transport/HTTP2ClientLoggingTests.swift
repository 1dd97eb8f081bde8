import Foundation
import HeraldHTTPTestSupport
import HeraldLog
import HeraldPush
import HeraldSandbox
import Testing

/// What the client tells the logger it is given (`HTTP2ClientConfiguration.logger`): trouble with
/// connections, at the level it deserves; a request's own failure is thrown, not logged.
@Suite("HTTP2Client logs connection trouble to the application's logger")
struct HTTP2ClientLoggingTests {
    static let couldNotConnect = "push client: could not connect"
    static let goAway = "push client: the server sent GOAWAY; new requests go to another connection"
    static let lost = "push client: lost a connection with requests in flight"

    @Test func aRefusedConnectionIsAWarning() async throws {
        let log = CapturingLogHandler()
        let client = HTTP2Client(configuration: HTTP2ClientConfiguration(logger: log.logger()))
        let port = try LoopbackPort.unused()
        _ = try? await client.send(HTTP2Request(url: "https://127.0.0.1:\(port)/"))
        await client.shutdown()
        let entries = log.entries(Self.couldNotConnect)
        #expect(entries.count == 1)
        #expect(entries.first?.level == .warning)
        #expect(entries.first?.metadata["kind"] == "connectionRefused")
        #expect(entries.first?.metadata["host"] == "127.0.0.1" && entries.first?.metadata["port"] == String(port))
        #expect(log.entries.count == 1)
    }

    @Test func anUntrustedCertificateIsAnError() async throws {
        let server = try TransportServer()
        let log = CapturingLogHandler()
        let client = HTTP2Client(configuration: HTTP2ClientConfiguration(logger: log.logger()))
        _ = try? await client.send(HTTP2Request(url: server.url("/hello.txt")))
        await client.shutdown()
        await server.stop()
        let entries = log.entries(Self.couldNotConnect)
        #expect(entries.map(\.level) == [.error], "retrying cannot help: a setting to fix")
        #expect(entries.first?.metadata["kind"] == "certificate")
    }

    @Test func aGoAwayIsANotice() async throws {
        let server = try TransportServer(cleartext: true, faults: HTTP2ServerFaults(goAwayAfterRequests: 0))
        let log = CapturingLogHandler()
        let client = HTTP2Client(
            configuration: HTTP2ClientConfiguration(negotiation: .priorKnowledge, logger: log.logger()))
        _ = try? await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: [1]))
        await client.shutdown()
        await server.stop()
        let entries = log.entries(Self.goAway)
        #expect(entries.map(\.level) == [.notice])
        #expect(entries.first?.metadata["code"] == "NO_ERROR" && entries.first?.metadata["last_stream"] == "0")
        #expect(log.entries(Self.lost).isEmpty, "the refused stream was never in flight")
    }

    @Test func aConnectionLostWithRequestsInFlightIsAWarning() async throws {
        let server = try TransportServer()
        let log = CapturingLogHandler()
        let client = HTTP2Client(
            configuration: HTTP2ClientConfiguration(caFile: try TransportServer.caFile, logger: log.logger()))
        let hanging = (0..<2).map { _ in Task { try await client.send(HTTP2Request(url: server.url("/hang"))) } }
        try await server.waitUntilHanging(count: 2)
        await server.kill()
        for task in hanging { _ = try? await task.value }
        await client.shutdown()
        let entries = log.entries(Self.lost)
        #expect(entries.map(\.level) == [.warning])
        #expect(entries.first?.metadata["requests"] == "2" && entries.first?.metadata["kind"] == "connectionLost")
    }

    @Test func shuttingDownLogsNothing() async throws {
        let server = try TransportServer()
        let log = CapturingLogHandler()
        let client = HTTP2Client(
            configuration: HTTP2ClientConfiguration(caFile: try TransportServer.caFile, logger: log.logger()))
        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()
        await client.shutdown()
        _ = try? await hanging.value
        await server.stop()
        #expect(log.entries.isEmpty)
    }
}
