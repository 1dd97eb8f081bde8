import Foundation
import HeraldHTTPTestSupport
import HeraldPush
import HeraldSandbox
import Testing

@Suite("HTTP2Client against the sandbox's HTTP/2 server")
struct HTTP2ClientTests {
    /// HTTP/2 over TLS, trusting the transport server's certificate.
    static func makeClient(maxConnectionsPerHost: Int = 2) throws -> HTTP2Client {
        HTTP2Client(
            configuration: HTTP2ClientConfiguration(
                maxConnectionsPerHost: maxConnectionsPerHost, caFile: try TransportServer.caFile))
    }

    /// POSTs `count` bodies to `/echo` one after the other, each echoed whole.
    static func echoInTurn(_ count: Int, client: HTTP2Client, server: TransportServer, tag: String) async throws {
        for index in 0..<count {
            let body = Array("\(tag) \(index)".utf8)
            let echoed = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: body))
            #expect(echoed.status == 200)
            #expect(echoed.body == body)
        }
    }

    /// `liveHandles` of a client with no request in flight: the TLS context plus an `SSL` object and a session per open connection.
    static func idleHandles(openConnections: Int) -> Int {
        1 + 2 * openConnections
    }

    @Test func getAndPostRoundTrip() async throws {
        let server = try TransportServer()
        let client = try Self.makeClient()

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
        let server = try TransportServer()
        let client = try Self.makeClient()
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
        let server = try TransportServer()
        let client = try Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hang"), timeout: .milliseconds(300)))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.isRetryable == true)
        await server.stop()
    }

    @Test func connectionRefusedIsTyped() async throws {
        let client = try Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(try LoopbackPort.unused())/"))
        }
        #expect(error?.kind == .connectionRefused)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("Failed to connect") == true)
    }

    @Test("the engine (thread, TLS context) starts with the first request; after shutdown a request is .closed")
    func startsWithTheFirstRequest() async throws {
        let server = try TransportServer()
        let client = try Self.makeClient()
        #expect(!client.isStarted && client.liveHandles == 0 && client.connectionsOpened == 0)
        #expect(try await client.send(HTTP2Request(url: server.url("/hello.txt"))).status == 200)
        #expect(client.isStarted && client.liveHandles == Self.idleHandles(openConnections: 1))
        await client.shutdown()
        #expect(client.liveHandles == 0)
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hello.txt")))
        }
        #expect(error?.kind == .closed)
        let unused = try Self.makeClient()
        await unused.shutdown()
        #expect(!unused.isStarted, "shutting down a client that never sent starts nothing")

        // First requests at once share one start; a shutdown racing a start shuts that engine down.
        let together = try Self.makeClient()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await together.send(HTTP2Request(url: server.url("/hello.txt"))).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(together.liveHandles == Self.idleHandles(openConnections: together.connectionsOpened))
        await together.shutdown()
        #expect(together.liveHandles == 0)
        let racing = try Self.makeClient()
        let first = Task { try await racing.send(HTTP2Request(url: server.url("/hello.txt"))) }
        await racing.shutdown()
        if case .failure(let error as HTTP2ClientError) = await first.result {
            #expect(error.kind == .closed, "\(error)")
        }
        #expect(racing.liveHandles == 0, "whatever the order, nothing is left running")
        await server.stop()
    }

    @Test func untrustedCertificateIsTypedAndFinal() async throws {
        let server = try TransportServer()
        let client = HTTP2Client(configuration: HTTP2ClientConfiguration())
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
        let client = try Self.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(
                HTTP2Request(url: "https://127.0.0.1:1/", headers: [HTTP2Header("apns-topic", "app\r\nx-injected: 1")]))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(client.liveHandles == 1)
    }

    @Test func killedServerFailsEveryInFlightRequestThenALaterOneReconnects() async throws {
        let server = try TransportServer()
        let client = try Self.makeClient()
        #expect(try await client.send(HTTP2Request(url: server.url("/hello.txt"))).status == 200)

        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()
        // In flight behind it: the server holds them unanswered, as a server about to crash.
        let queuedBehind = (0..<10).map { _ in
            Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        }
        await server.kill()

        for task in [hanging] + queuedBehind {
            let error = await #expect(throws: HTTP2ClientError.self) { try await task.value }
            #expect(error?.isRetryable == true)
            // Reset streams, or a reconnect tried while the process was dying.
            #expect([.connectionLost, .goaway, .connectionRefused, .tlsHandshake].contains(error?.kind))
        }

        let restarted = try TransportServer(port: server.port)
        #expect(try await client.send(HTTP2Request(url: restarted.url("/hello.txt"))).status == 200)
        #expect(client.connectionsOpened >= 2)
        await restarted.stop()
    }

    @Test func cancellingARequestInFlightRemovesIt() async throws {
        let server = try TransportServer()
        let client = try Self.makeClient()
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
        let server = try TransportServer()
        let client = try Self.makeClient()
        #expect(client.liveHandles == 0, "nothing before the first request")
        _ = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: [1, 2, 3]))
        _ = try? await client.send(HTTP2Request(url: "https://127.0.0.1:\(try LoopbackPort.unused())/"))
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
        // GOAWAY with last stream id 0 and NO_ERROR after the SETTINGS: the request was never processed.
        let server = try TransportServer(cleartext: true, faults: HTTP2ServerFaults(goAwayAfterRequests: 0))
        let client = HTTP2Client(configuration: h2c())
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(method: "POST", url: server.url("/3/device/abc"), body: [1]))
        }
        #expect(error?.kind == .goaway)
        #expect(error?.isRetryable == true)
        #expect(server.requests.isEmpty)
        await client.shutdown()
        await server.stop()
    }

    @Test func streamResetIsTyped() async throws {
        let server = try TransportServer(cleartext: true)
        let client = HTTP2Client(configuration: h2c())
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/reset")))
        }
        #expect(error?.kind == .streamReset)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("INTERNAL_ERROR") == true)
        await client.shutdown()
        await server.stop()
    }

    @Test func goawayAfterSomeRequestsMovesLaterOnesToANewConnection() async throws {
        // A server that takes two requests per connection (as providers end connections with
        // GOAWAY): requests one after the other all pass, two connections each.
        let server = try TransportServer(cleartext: true, faults: HTTP2ServerFaults(goAwayAfterRequests: 2))
        let client = HTTP2Client(configuration: h2c())
        try await HTTP2ClientTests.echoInTurn(6, client: client, server: server, tag: "goaway")
        #expect(client.connectionsOpened == 3)
        #expect(Set(server.requests.map(\.connectionID)).count == 3)
        await client.shutdown()
        await server.stop()
    }
}
