import Foundation
import HeraldHTTPTestSupport
import HeraldLog
import HeraldSandbox
import HeraldTestSupport
import Testing

@Suite("HTTP/2 server over libnghttp2, driven by curl")
struct HTTP2ServerTests {
    @Test("h2c with prior knowledge: status, echoed headers and body")
    func cleartextEcho() async throws {
        let test = try TestServer()
        let result = try await Curl.run([
            "--http2-prior-knowledge", "--include", "-X", "PUT", "-H", "x-echo: hello there", "-H", "x-status: 201",
            "--data-binary", "payload bytes", test.url("/echo?x=1"),
        ])
        await test.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("HTTP/2 201"))
        #expect(result.stdout.contains("x-echo: hello there"))
        #expect(result.stdout.contains("x-method: PUT"))
        #expect(result.stdout.hasSuffix("\r\n\r\npayload bytes"))
    }

    @Test("TLS with ALPN h2 and the generated certificate, for 127.0.0.1 and localhost")
    func tlsEcho() async throws {
        let directory = try temporaryDirectory()
        let identity = try TLSIdentity.selfSigned(in: directory)
        #expect(try TLSIdentity.selfSigned(in: directory) == identity)
        let keyMode = try FileManager.default.attributesOfItem(atPath: identity.privateKeyPath)[.posixPermissions]
        #expect(keyMode as? Int == 0o600, "the TLS key must be readable by its owner only")
        let pem = try String(contentsOfFile: identity.certificatePath, encoding: .utf8)
        let test = try TestServer(tls: identity)
        for host in ["127.0.0.1", "localhost"] {
            let result = try await Curl.run([
                "--http2", "--cacert", identity.certificatePath, "-H", "x-echo: secure", "--data-binary", "tls body",
                "--write-out", "\n%{http_version} %{http_code}", test.url("/echo", scheme: "https", host: host),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "tls body\n2 200")
        }
        // The generated file is reused, not rewritten, on the next start.
        #expect(try String(contentsOfFile: identity.certificatePath, encoding: .utf8) == pem)
        await test.server.stop()
    }

    @Test("a TLS server also answers h2c with prior knowledge on the same port")
    func tlsAndCleartextOnOnePort() async throws {
        let identity = try TLSIdentity.selfSigned(in: try temporaryDirectory())
        let test = try TestServer(tls: identity)
        let secure = try await Curl.run([
            "--http2", "--cacert", identity.certificatePath, "--data-binary", "over tls",
            "--write-out", " %{http_version} %{scheme}", test.url("/echo", scheme: "https"),
        ])
        let cleartext = try await Curl.run([
            "--http2-prior-knowledge", "--data-binary", "over h2c", "--write-out", " %{http_version} %{scheme}",
            test.url("/echo"),
        ])
        await test.server.stop()
        #expect(secure.stdout == "over tls 2 HTTPS", "\(secure.stderr)")
        #expect(cleartext.stdout == "over h2c 2 HTTP", "\(cleartext.stderr)")
    }

    @Test("a client's RST_STREAM and GOAWAY are counted (the sandbox's view of clients giving up)")
    func clientAbortsAreCounted() async throws {
        let test = try TestServer()
        #expect(test.server.resetsReceived == 0 && test.server.goAwaysReceived == 0)
        // Raw HTTP/2: GET /hold on stream 1, then, once it reached the handler, RST_STREAM
        // (CANCEL) for it and GOAWAY (NO_ERROR; its last stream id names server streams: none).
        let headers: [UInt8] = [0x82, 0x86, 0x44, 5] + Array("/hold".utf8) + [0x41, 1, UInt8(ascii: "x")]
        let open =
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 0x4, 0, 0, 0, 0, 0]
            + [0, 0, UInt8(headers.count), 0x1, 0x5, 0, 0, 0, 1] + headers
        let abort: [UInt8] =
            [0, 0, 4, 0x3, 0, 0, 0, 0, 1, 0, 0, 0, 8] + [0, 0, 8, 0x7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let fd = try #require(RawConnection(port: test.server.port))
        #expect(fd.send(open))
        #expect(await test.nextArrival() == "/hold")
        #expect(fd.send(abort))
        var seen = (0, 0)
        for _ in 0..<250 where seen != (1, 1) {
            try await Task.sleep(for: .milliseconds(20))
            seen = (test.server.resetsReceived, test.server.goAwaysReceived)
        }
        fd.close()
        await test.server.stop()
        #expect(seen == (1, 1), "RST_STREAM and GOAWAY received: \(seen)")
    }

    @Test("with the refusesH2InALPN fault, TLS never agrees on h2: an h2-only client fails, HTTP/1.1 still works")
    func tlsWithoutH2() async throws {
        let identity = try TLSIdentity.selfSigned(in: try temporaryDirectory())
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(
                tls: identity, faults: HTTP2ServerFaults(refusesH2InALPN: true))
        ) { request in HTTP2Response(status: 200, body: Array(request.version.rawValue.utf8)) }
        let offered = try await Curl.run([
            "--http2", "--cacert", identity.certificatePath, "--write-out", " %{http_version}",
            "https://127.0.0.1:\(server.port)/",
        ])
        await server.stop()
        #expect(offered.stdout == "HTTP/1.1 1.1", "curl falls back to http/1.1: \(offered.stderr)")
    }

    /// Over TLS: curl 7.88 cannot reuse an h2c prior-knowledge connection (curl issue 10634,
    /// fixed in 8.0), so its `--parallel` fails every transfer after the first on h2c.
    @Test("200 concurrent requests are multiplexed on one or a few connections")
    func manyConcurrentStreams() async throws {
        let identity = try TLSIdentity.selfSigned(in: try temporaryDirectory())
        let test = try TestServer(tls: identity)
        let urls = (0..<200).map { test.url("/echo?n=\($0)", scheme: "https") }
        let result = try await Curl.run(
            [
                "--http2", "--cacert", identity.certificatePath, "--parallel", "--parallel-max", "100",
                "--write-out", "%{http_code} %{http_version}\n",
            ] + urls.flatMap { ["-o", "/dev/null", $0] })
        await test.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").filter { $0 == "200 2" }.count == 200)
        let perConnection = test.requestsPerConnection
        #expect(perConnection.values.reduce(0, +) == 200)
        #expect(perConnection.count <= 3, "\(perConnection)")
        #expect(test.server.connectionsAccepted == perConnection.count)
    }

    @Test("a 1 MiB body goes both ways under flow control (windows of 64 KiB)")
    func largeBodies() async throws {
        let directory = try temporaryDirectory()
        let upload = directory + "/upload.bin"
        let download = directory + "/download.bin"
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: upload))
        let test = try TestServer()
        let result = try await Curl.run([
            "--http2-prior-knowledge", "--data-binary", "@" + upload, "-o", download, "--write-out", "%{http_code}",
            test.url("/echo"),
        ])
        await test.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "200")
        #expect(try Data(contentsOf: URL(fileURLWithPath: download)) == Data(bytes))
    }

    @Test("a client that breaks HTTP/2 after the preface (no SETTINGS first) is sent GOAWAY and closed")
    func brokenHTTP2Closes() async throws {
        let test = try TestServer()
        let connection = try await LoopbackHTTPClient(port: test.server.port).openConnection()
        // The preface, then HEADERS where SETTINGS must come first: a connection error.
        try await connection.send(
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 4, 0x1, 0x5, 0, 0, 0, 1, 1, 2, 3, 4])
        var closed = false
        for _ in 0..<5 where !closed { closed = try await connection.waitForClose() }
        connection.close()
        await test.server.stop()
        #expect(closed)
        #expect(test.requestsPerConnection.isEmpty)
    }

    @Test(
        "a TLS handshake the client breaks off (it does not trust the certificate) is logged, and nothing is answered")
    func refusedHandshakeIsLogged() async throws {
        let log = CapturingLogHandler()
        let test = try TestServer(tls: try TLSIdentity.selfSigned(in: try temporaryDirectory()), logger: log.logger())
        let result = try await Curl.run(["--http2", test.url("/echo", scheme: "https")])
        try await eventually("the sandbox logged the failed handshake") {
            !log.entries("sandbox: a TLS handshake failed; the connection closes").isEmpty
        }
        await test.server.stop()
        #expect(result.status == 60, "\(result.stderr)")  // the peer certificate cannot be authenticated
        #expect(test.requestsPerConnection.isEmpty)
        #expect(log.entries("sandbox: a TLS handshake failed; the connection closes").map(\.level) == [.debug])
    }

    @Test("an unknown path is a 404 with an empty body")
    func notFound() async throws {
        let test = try TestServer()
        let result = try await Curl.run([
            "--http2-prior-knowledge", "--write-out", "%{http_code}", test.url("/nothing"),
        ])
        await test.server.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "404")
    }
}

/// A blocking loopback TCP connection for raw HTTP/2 bytes.
private final class RawConnection: Sendable {
    private let fd: Int32

    init?(port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else {
            if fd >= 0 { Glibc.close(fd) }
            return nil
        }
        self.fd = fd
    }

    func send(_ bytes: [UInt8]) -> Bool {
        Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
    }

    func close() { Glibc.close(fd) }
}
