import Foundation
import HeraldHTTPTestSupport
import HeraldSandbox
import HeraldTestSupport
import Testing

/// HTTP/1.1 on the sandbox's port (issue 15, point 5): what Python's `requests` and curl without
/// `--http2` speak to Google's and Expo's services.
@Suite("HTTP/1.1 beside HTTP/2 on the sandbox's port")
struct HTTP1Tests {
    @Test("over TLS, ALPN http/1.1 and a client without ALPN get HTTP/1.1; h2 is still chosen when offered")
    func tlsChoosesByALPN() async throws {
        let identity = try TLSIdentity.selfSigned(in: try temporaryDirectory())
        let test = try TestServer(tls: identity)
        var results: [String] = []
        for version in ["--http1.1", "--http2"] {
            let result = try await Curl.run([
                version, "--cacert", identity.certificatePath, "-H", "x-echo: e", "--data-binary", "body",
                "--write-out", " %{http_version} %{http_code}", test.url("/echo", scheme: "https"),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            results.append(result.stdout)
        }
        let noALPN = try await Curl.run([
            "--http1.1", "--no-alpn", "--cacert", identity.certificatePath, "--data-binary", "plain",
            "--write-out", " %{http_version}", test.url("/echo", scheme: "https"),
        ])
        await test.server.stop()
        #expect(results == ["body 1.1 200", "body 2 200"])
        #expect(noALPN.stdout == "plain 1.1", "\(noALPN.stderr)")
    }

    @Test("in cleartext the first bytes tell: the h2 preface is h2c, anything else HTTP/1.1")
    func cleartextSniffs() async throws {
        let test = try TestServer()
        let http1 = try await Curl.run([
            "--http1.1", "--include", "-X", "PUT", "-H", "x-echo: hello", "-H", "x-status: 201", "--data-binary", "old",
            test.url("/echo?x=1"),
        ])
        let h2c = try await Curl.run([
            "--http2-prior-knowledge", "--data-binary", "new", "--write-out", " %{http_version}", test.url("/echo"),
        ])
        await test.server.stop()
        #expect(http1.stdout.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(http1.stdout)")
        #expect(http1.stdout.contains("X-Echo: hello\r\n") && http1.stdout.contains("x-method: PUT\r\n"))
        #expect(http1.stdout.contains("content-length: 3\r\n") && http1.stdout.hasSuffix("\r\n\r\nold"))
        #expect(h2c.stdout == "new 2")
    }

    @Test("keep-alive, pipelining, a chunked body, Expect: 100-continue and Connection: close")
    func framing() async throws {
        let test = try TestServer()
        let client = LoopbackHTTPClient(port: test.port)
        let connection = try await client.openConnection()
        // Two requests at once on one connection (pipelined), the second with a chunked body.
        try await connection.send(
            "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nfirst"
                + "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;ext=1\r\nsec\r\n4\r\nond!\r\n0\r\nTrailer: x\r\n\r\n")
        let first = try await connection.readResponse(method: "POST")
        let second = try await connection.readResponse(method: "POST")
        #expect(first.text == "first" && second.text == "second!")
        #expect(test.requestsPerConnection.count == 1)
        try await connection.send("GET /echo HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let closing = try await connection.readResponse()
        #expect(closing.header("connection") == "close")
        #expect(try await connection.waitForClose())
        connection.close()
        // curl waits for the interim 100 before it sends a body it announced with Expect.
        let expecting = try await Curl.run([
            "--http1.1", "--verbose", "-H", "Expect: 100-continue", "--data-binary", "late", test.url("/echo"),
        ])
        await test.server.stop()
        #expect(expecting.stderr.contains("< HTTP/1.1 100 Continue"), "\(expecting.stderr)")
        #expect(expecting.stdout == "late")
    }

    @Test(
        "malformed requests are refused with a JSON error and the connection closes",
        arguments: [
            ("GET /echo HTTP/1.1\r\n\r\n", 400),  // no Host
            ("GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("GET  /echo HTTP/1.1\r\nHost: a\r\n\r\n", 400),
            ("GET /echo HTTP/3.0\r\nHost: a\r\n\r\n", 505),
            ("GET /echo HTTP/1.1\r\nHost: a\r\n folded: value\r\n\r\n", 400),
            ("GET /echo HTTP/1.1\r\nHost: a\r\nBad Name: v\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n", 400),
            ("POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999\r\n\r\n", 413),
            ("GET /echo HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 17_000) + "\r\n\r\n", 431),
        ])
    func refusals(head: String, status: Int) async throws {
        let test = try TestServer()
        let connection = try await LoopbackHTTPClient(port: test.port).openConnection()
        try await connection.send(head)
        let answer = try await connection.readResponse()
        #expect(answer.status == status, "\(answer.text)")
        #expect(answer.header("connection") == "close")
        #expect((try answer.json() as? [String: Any])?["error"] is String)
        #expect(try await connection.waitForClose())
        #expect(test.requestsPerConnection.isEmpty, "a refused request never reaches the handler")
        connection.close()
        await test.server.stop()
    }

    @Test("2,000 requests pipelined in one write are each answered in order, on one connection")
    func deepPipeline() async throws {
        let test = try TestServer()
        let connection = try await LoopbackHTTPClient(port: test.port).openConnection()
        let count = 2_000
        try await connection.send(
            (0..<count).map {
                "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: \(String($0).utf8.count)\r\n\r\n\($0)"
            }
            .joined())
        var bodies: [String] = []
        for _ in 0..<count { bodies.append(try await connection.readResponse(method: "POST").text) }
        connection.close()
        await test.server.stop()
        #expect(bodies == (0..<count).map(String.init))
        #expect(test.requestsPerConnection.values.reduce(0, +) == count && test.requestsPerConnection.count == 1)
    }

    @Test("a client sending more than a whole next request while one is answered is dropped")
    func floodWhileAnswering() async throws {
        let test = try TestServer()
        let connection = try await LoopbackHTTPClient(port: test.port).openConnection()
        try await connection.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await test.nextArrival() == "/hold")
        let flood = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var dropped = false
        for _ in 0..<8 where !dropped {
            do {
                try await connection.send(flood)
            } catch {
                dropped = true
            }
        }
        if !dropped { dropped = try await connection.waitForClose() }
        connection.close()
        await test.server.stop()
        #expect(dropped, "the connection was reset, not its flood kept")
    }

    @Test("a 204 answer carries no Content-Length and no body; an HTTP/1.0 client kept alive is told so")
    func bodilessAndKeepAlive() async throws {
        let test = try TestServer()
        let connection = try await LoopbackHTTPClient(port: test.port).openConnection()
        try await connection.send(
            "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nx-status: 204\r\nContent-Length: 2\r\n\r\nhi")
        let answer = try await connection.readResponse(method: "POST")
        #expect(answer.status == 204 && answer.header("content-length") == nil && answer.body.isEmpty)
        #expect(answer.header("connection") == "keep-alive")
        try await connection.send("POST /echo HTTP/1.0\r\nContent-Length: 2\r\n\r\nok")
        let second = try await connection.readResponse(method: "POST")
        #expect(second.text == "ok" && second.header("connection") == "close")
        connection.close()
        await test.server.stop()
    }

    @Test("a body over the server's limit is 413 over HTTP/1.1 and HTTP/2, never reaching the handler")
    func bodyLimit() async throws {
        let directory = try temporaryDirectory()
        let upload = directory + "/upload.bin"
        try Data(repeating: 7, count: 4 * 1024 * 1024 + 1).write(to: URL(fileURLWithPath: upload))
        let test = try TestServer()
        var codes: [String] = []
        for version in ["--http1.1", "--http2-prior-knowledge"] {
            let result = try await Curl.run([
                version, "--data-binary", "@" + upload, "-o", "/dev/null", "--write-out", "%{http_code}",
                test.url("/echo"),
            ])
            codes.append(result.stdout)
        }
        let fits = try await Curl.run([
            "--http1.1", "--data-binary", String(repeating: "a", count: 1000), "-o", "/dev/null",
            "--write-out", "%{http_code}", test.url("/echo"),
        ])
        await test.server.stop()
        #expect(codes == ["413", "413"])
        #expect(fits.stdout == "200")
        #expect(test.requestsPerConnection.values.reduce(0, +) == 1)
    }

    @Test("the APNs look-alike answers HTTP/1.1 with 505: APNs speaks HTTP/2 only")
    func apnsRefusesHTTP1() async throws {
        let apns = try APNsFixture()
        let router = SandboxRouter(apns.sandbox.routes)
        let server = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(), answering: router.answer)
        let result = try await Curl.run([
            "--http1.1", "--write-out", "\n%{http_code}", "-H", "apns-topic: \(APNsFixture.bundleID)", "--data-binary",
            "{}",
            "http://127.0.0.1:\(server.port)/3/device/" + String(repeating: "ab", count: 32),
        ])
        await server.stop()
        #expect(result.stdout.hasSuffix("\n505"), "\(result.stdout)")
        #expect(result.stdout.contains("APNs takes HTTP"))
        #expect(apns.sandbox.accepted.isEmpty)
    }
}
