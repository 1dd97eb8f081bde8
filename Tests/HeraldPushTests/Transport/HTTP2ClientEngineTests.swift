import Foundation
import HeraldHTTPTestSupport
import HeraldPush
import HeraldSandbox
import Testing

/// What the client promises beyond the basic suite: ALPN, the server's stream limit,
/// streams never reset once finished, large bodies, host names, h2c.
@Suite("HTTP2Client: TLS, limits, bodies and names")
struct HTTP2ClientEngineTests {
    @Test func serverWithoutH2InALPNIsTypedAndFinal() async throws {
        let server = try TransportServer(faults: HTTP2ServerFaults(refusesH2InALPN: true))
        let client = try HTTP2ClientTests.makeClient()
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(server.port)/"))
        }
        #expect(error?.kind == .other)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("ALPN h2") == true, "\(String(describing: error))")
        await client.shutdown()
        await server.stop()
    }

    @Test func serverStreamLimitIsRespected() async throws {
        // The server allows 4 streams per connection (nghttp2 refuses a fifth): 40 requests at once
        // need both connections.
        let server = try TransportServer(maxConcurrentStreams: 4)
        let client = try HTTP2ClientTests.makeClient(maxConnectionsPerHost: 2)
        // The first connection learns the limit from the server's SETTINGS.
        #expect(try await client.send(HTTP2Request(url: server.url("/hello.txt"))).status == 200)
        let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<40 {
                group.addTask {
                    let request = HTTP2Request(method: "POST", url: server.url("/echo"), body: Array("\(index)".utf8))
                    let response = try await client.send(request)
                    #expect(response.status == 200)
                    return response.body
                }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<40).map { Array("\($0)".utf8) }))
        #expect(client.connectionsOpened == 2)
        await client.shutdown()
        await server.stop()
    }

    @Test func aRequestWaitsForAFreeStreamRatherThanAnotherConnection() async throws {
        // One stream per connection and one connection: a request behind a hanging one waits,
        // unsent (the server would refuse it), until its timeout; a cancelled one leaves at once.
        let server = try TransportServer(maxConcurrentStreams: 1)
        let client = try HTTP2ClientTests.makeClient(maxConnectionsPerHost: 1)
        #expect(try await client.send(HTTP2Request(url: server.url("/hello.txt"))).status == 200)
        let hanging = Task { try await client.send(HTTP2Request(url: server.url("/hang"))) }
        try await server.waitUntilHanging()

        let waiting = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: server.url("/hello.txt"), timeout: .milliseconds(200)))
        }
        #expect(waiting?.kind == .timedOut)
        let cancelled = Task { try await client.send(HTTP2Request(url: server.url("/hello.txt"))) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(client.connectionsOpened == 1)
        #expect(server.requests.map(\.path) == ["/hello.txt", "/hang"])

        await client.shutdown()
        let closed = await #expect(throws: HTTP2ClientError.self) { try await hanging.value }
        #expect(closed?.kind == .closed)
        #expect(client.liveHandles == 0)
        await server.stop()
    }

    @Test func connectTimeoutIsTyped() async throws {
        let listener = try FullBacklogListener()
        defer { listener.close() }
        let client = HTTP2Client(
            configuration: HTTP2ClientConfiguration(connectTimeout: .milliseconds(300)))
        let error = await #expect(throws: HTTP2ClientError.self) {
            try await client.send(HTTP2Request(url: "https://127.0.0.1:\(listener.port)/"))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.isRetryable == true)
        await client.shutdown()
    }

    @Test func finishedStreamsAreNeverReset() async throws {
        // nghttp2 servers end a connection with GOAWAY after about 1,000 client resets, so 3,000
        // requests on one connection fail or reconnect if the client resets finished streams.
        // (libcurl 7.88, the removed engine, did when a POST's answer had no body.) The server
        // answers each POST on its HEADERS, without reading the upload, with no body.
        let server = try TransportServer(faults: HTTP2ServerFaults(answersBeforeBody: true))
        let client = try HTTP2ClientTests.makeClient(maxConnectionsPerHost: 1)
        let request = HTTP2Request(method: "POST", url: server.url("/empty"), body: Array(repeating: 0x41, count: 100))
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            var failures = 0
            for index in 0..<3_000 {
                if index >= 256, let failed = try await group.next() { failures += failed }
                group.addTask { try await client.send(request).status == 200 ? 0 : 1 }
            }
            return try await group.reduce(failures, +)
        }
        #expect(failures == 0)
        #expect(client.connectionsOpened == 1)
        #expect(server.server.resetsReceived == 0)
        await client.shutdown()
        await server.stop()
    }

    @Test func largeBodyIsEchoedIntact() async throws {
        let server = try TransportServer()
        let client = try HTTP2ClientTests.makeClient()
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let echoed = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: body))
        #expect(echoed.status == 200)
        #expect(echoed.body.count == body.count)
        #expect(echoed.body == body)
        await client.shutdown()
        await server.stop()
    }

    @Test func ipv4LiteralAndLocalhostBothVerify() async throws {
        let server = try TransportServer()
        let client = try HTTP2ClientTests.makeClient()
        for host in ["127.0.0.1", "localhost"] {
            let response = try await client.send(HTTP2Request(url: "https://\(host):\(server.port)/hello.txt"))
            #expect(response.status == 200, "\(host)")
            #expect(response.body == Array("hello\n".utf8), "\(host)")
        }
        #expect(client.connectionsOpened == 2)
        await client.shutdown()
        await server.stop()
    }

    @Test func h2cWithPriorKnowledgeReusesItsConnection() async throws {
        let server = try TransportServer(cleartext: true)
        let client = HTTP2Client(configuration: HTTP2ClientConfiguration(negotiation: .priorKnowledge))
        try await HTTP2ClientTests.echoInTurn(3, client: client, server: server, tag: "h2c")
        #expect(client.connectionsOpened == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func acceptEncodingPassesThroughUndecoded() async throws {
        let server = try TransportServer()
        let client = try HTTP2ClientTests.makeClient()
        // The server answers a static file as it is, whatever the client accepts.
        let response = try await client.send(
            HTTP2Request(url: server.url("/hello.txt"), headers: [HTTP2Header("Accept-Encoding", "gzip, deflate")]))
        #expect(response.status == 200)
        #expect(response.body == Array("hello\n".utf8))
        #expect(server.requests.last?.header("accept-encoding") == "gzip, deflate")
        await client.shutdown()
        await server.stop()
    }
}

/// A loopback listener that never accepts, its backlog filled: the kernel drops further SYNs, so
/// a connect to it hangs until the client gives up.
private final class FullBacklogListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let port: Int
        do {
            port = try LoopbackPort.bind(listener)
            guard listen(listener, 0) == 0 else { throw LoopbackPortError(errno: errno) }
        } catch {
            Glibc.close(listener)
            throw error
        }
        var address = LoopbackPort.address(port: port)
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        self.port = port
        descriptors = [listener] + fillers
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
