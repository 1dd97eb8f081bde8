import Foundation
import HeraldPush
import Testing

@Suite("HTTP2Client against nghttpd")
struct HTTP2ClientTests {
    /// HTTP/2 over TLS, trusting the test certificate.
    static func makeClient(maxConnectionsPerHost: Int = 2) async throws -> HTTP2Client {
        try HTTP2Client(
            configuration: HTTP2ClientConfiguration(
                maxConnectionsPerHost: maxConnectionsPerHost,
                caFile: try await TestCertificate.shared.value.certificateFile))
    }

    /// `liveHandles` of a client with no request in flight: the TLS context plus an `SSL` object and a session per open connection.
    static func idleHandles(openConnections: Int) -> Int {
        1 + 2 * openConnections
    }

    @Test func getAndPostRoundTrip() async throws {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()

        let hello = try await client.send(HTTP2Request(url: server.url("/hello.txt")))
        #expect(hello.status == 200)
        #expect(hello.body == Array("hello\n".utf8))
        #expect(hello.header("Content-Length") == "6")

        let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let echoed = try await client.send(
            HTTP2Request(
                method: "POST", url: server.url("/3/device/abc"), headers: [HTTP2Header("apns-topic", "app.herald")],
                body: body))
        #expect(echoed.status == 200)
        #expect(echoed.body == body)

        let missing = try await client.send(HTTP2Request(url: server.url("/missing")))
        #expect(missing.status == 404)
        #expect(client.connectionsOpened == 1)
        await server.stop()
    }

    @Test func multiplexesConcurrentRequestsOverFewConnections()
        async throws
    {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let request = HTTP2Request(method: "POST", url: server.url("/echo"), body: Array("\(index)".utf8))
                    return try await client.send(request).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 200))
        #expect(client.connectionsOpened <= 2)
        await server.stop()
    }

    @Test func requestTimeoutIsTyped() async throws {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hang"), timeout: .milliseconds(300)))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.isRetryable == true)
        await server.stop()
    }

    @Test func connectionRefusedIsTyped() async throws {
        let client = try await Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(try freePort())/"))
        }
        #expect(error?.kind == .connectionRefused)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("Failed to connect") == true)
    }

    @Test func untrustedCertificateIsTypedAndFinal() async throws {
        let server = try await NGHTTPD.start()
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration())
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hello.txt")))
        }
        #expect(error?.kind == .certificate)
        #expect(error?.isRetryable == false)
        await server.stop()
    }

    @Test func headerWithALineBreakIsRefusedBeforeSending()
        async throws
    {
        let client = try await Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(
                HTTP2Request(url: "https://127.0.0.1:1/", headers: [HTTP2Header("apns-topic", "app\r\nx-injected: 1")]))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(client.liveHandles == 1)
    }

    @Test func killedServerFailsEveryInFlightRequestThenALaterOneReconnects() async throws {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()
        #expect(try await client.send(HTTP2Request(url: server.url("/hello.txt"))).status == 200)

        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()
        let queuedBehind = (0..<10).map { _ in
            Task { try await client.send(HTTP2Request(url: server.url("/hello.txt"))) }
        }
        await server.stop(signal: SIGKILL)

        for task in [hanging] + queuedBehind {
            let error = await #expect(throws: HTTP2ClientError.self) { try await task.value }
            #expect(error?.isRetryable == true)
            // Reset streams, or a reconnect tried while the process was dying.
            #expect([.connectionLost, .goaway, .connectionRefused, .tlsHandshake].contains(error?.kind))
        }

        let restarted = try await NGHTTPD.start(port: server.port)
        #expect(try await client.send(HTTP2Request(url: restarted.url("/hello.txt"))).status == 200)
        #expect(client.connectionsOpened >= 2)
        await restarted.stop()
    }

    @Test func cancellingARequestInFlightRemovesIt() async throws {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()
        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()
        hanging.cancel()
        await #expect(throws: CancellationError.self) { try await hanging.value }
        #expect(client.liveHandles == Self.idleHandles(openConnections: 1))

        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTP2Request(url: server.url("/hello.txt")))
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        await server.stop()
    }

    @Test func shutdownFailsRequestsInFlightAndFreesEveryHandle()
        async throws
    {
        let server = try await NGHTTPD.start()
        let client = try await Self.makeClient()
        #expect(client.liveHandles == 1)
        _ = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: [1, 2, 3]))
        _ = try? await client.send(HTTP2Request(url: "https://127.0.0.1:\(try freePort())/"))
        #expect(client.liveHandles == Self.idleHandles(openConnections: 1))

        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()
        await client.shutdown()
        let error = await #expect(throws: HTTP2ClientError.self) { try await hanging.value }
        #expect(error?.kind == .closed)
        #expect(client.liveHandles == 0)

        let late = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hello.txt")))
        }
        #expect(late?.kind == .closed)
        #expect(client.liveHandles == 0)
        await server.stop()
    }
}

@Suite("HTTP2Client against a misbehaving h2c server")
struct HTTP2ClientFaultTests {
    private func h2c() -> HTTP2ClientConfiguration {
        HTTP2ClientConfiguration(negotiation: .priorKnowledge)
    }

    @Test func goawayIsTyped() async throws {
        let server = try MisbehavingH2CServer(.goaway)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: h2c())
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(method: "POST", url: server.url("/3/device/abc"), body: [1]))
        }
        #expect(error?.kind == .goaway)
        #expect(error?.isRetryable == true)
    }

    @Test func streamResetIsTyped() async throws {
        let server = try MisbehavingH2CServer(.resetStream)
        defer { server.stop() }
        let client = try HTTP2Client(configuration: h2c())
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/")))
        }
        #expect(error?.kind == .streamReset)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("INTERNAL_ERROR") == true)
    }
}
