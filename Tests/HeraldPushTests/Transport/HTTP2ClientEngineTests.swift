import Foundation
import HeraldHTTPTestSupport
import HeraldPush
import Testing

/// What the client promises beyond the basic suite: ALPN, the server's stream limit,
/// streams never reset once finished, large bodies, host names, h2c.
@Suite("HTTP2Client: TLS, limits, bodies and names")
struct HTTP2ClientEngineTests {
    @Test func serverWithoutH2InALPNIsTypedAndFinal() async throws {
        let server = try await TLSServerWithoutH2.start()
        let client = try await HTTP2ClientTests.makeClient()
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
        // nghttpd allows 4 streams per connection: 40 requests at once need both connections.
        let server = try await NGHTTPD.start(options: ["--echo-upload", "--max-concurrent-streams=4"])
        let client = try await HTTP2ClientTests.makeClient(maxConnectionsPerHost: 2)
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
        // unsent, until its timeout; a cancelled one leaves at once.
        let server = try await NGHTTPD.start(options: ["--echo-upload", "--max-concurrent-streams=1"])
        let client = try await HTTP2ClientTests.makeClient(maxConnectionsPerHost: 1)
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

        await client.shutdown()
        let closed = await #expect(throws: HTTP2ClientError.self) { try await hanging.value }
        #expect(closed?.kind == .closed)
        #expect(client.liveHandles == 0)
        await server.stop()
    }

    @Test func connectTimeoutIsTyped() async throws {
        let listener = try FullBacklogListener()
        defer { listener.close() }
        let client = try HTTP2Client(
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
        // (libcurl 7.88, the removed engine, did when a POST's answer had no body.) nghttpd serves the empty file
        // without reading the upload (no --echo-upload).
        let server = try await NGHTTPD.start(options: [])
        let client = try await HTTP2ClientTests.makeClient(maxConnectionsPerHost: 1)
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
        await client.shutdown()
        await server.stop()
    }

    @Test func largeBodyIsEchoedIntact() async throws {
        let server = try await NGHTTPD.start()
        let client = try await HTTP2ClientTests.makeClient()
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let echoed = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: body))
        #expect(echoed.status == 200)
        #expect(echoed.body.count == body.count)
        #expect(echoed.body == body)
        await client.shutdown()
        await server.stop()
    }

    @Test func ipv4LiteralAndLocalhostBothVerify() async throws {
        let server = try await NGHTTPD.start()
        let client = try await HTTP2ClientTests.makeClient()
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
        let server = try await NGHTTPD.start(cleartext: true)
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(negotiation: .priorKnowledge))
        for index in 0..<3 {
            let body = Array("h2c \(index)".utf8)
            let echoed = try await client.send(HTTP2Request(method: "POST", url: server.url("/echo"), body: body))
            #expect(echoed.status == 200)
            #expect(echoed.body == body)
        }
        #expect(client.connectionsOpened == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func acceptEncodingPassesThroughUndecoded() async throws {
        let server = try await NGHTTPD.start()
        let client = try await HTTP2ClientTests.makeClient()
        // nghttpd answers a static file as it is, whatever the client accepts.
        let response = try await client.send(
            HTTP2Request(url: server.url("/hello.txt"), headers: [HTTP2Header("Accept-Encoding", "gzip, deflate")]))
        #expect(response.status == 200)
        #expect(response.body == Array("hello\n".utf8))
        await client.shutdown()
        await server.stop()
    }
}

/// `openssl s_server` on a loopback port: TLS with the test certificate, but no ALPN, so no h2.
private final class TLSServerWithoutH2: Sendable {
    let port: Int
    private let process: ChildProcess

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    deinit { process.send(SIGKILL) }

    static func start() async throws -> TLSServerWithoutH2 {
        let certificate = try await TestCertificate.shared.value
        let port = try freePort()
        let process = try ChildProcess.spawn(
            "/usr/bin/openssl",
            [
                "s_server", "-quiet", "-www", "-accept", "127.0.0.1:\(port)", "-cert", certificate.certificateFile,
                "-key", certificate.keyFile,
            ], captureOutput: false, captureError: false)
        let server = TLSServerWithoutH2(port: port, process: process)
        for _ in 0..<250 {
            if canConnect(port) { return server }
            try await Task.sleep(for: .milliseconds(20))
        }
        await server.stop()
        throw NGHTTPDError(message: "openssl s_server did not listen on port \(port)")
    }

    func stop() async {
        process.send(SIGKILL)
        _ = await process.exit()
    }
}

/// A loopback listener that never accepts, its backlog filled: the kernel drops further SYNs, so
/// a connect to it hangs until the client gives up.
private final class FullBacklogListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound, listen(listener, 0) == 0 else {
            Glibc.close(listener)
            throw NGHTTPDError(message: "could not listen")
        }
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptors = [listener] + fillers
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
