import Foundation
import HeraldHTTPTestSupport
import HeraldSandbox
import Testing

@testable import HeraldServer

/// The webhook client over real sockets (https with the test certificate, timeouts, refused
/// connections, redirects not followed), its response parser, its URL parser and its address
/// policy.
@Suite("Webhook client: HTTP/1.1 over HeraldHTTP2's sockets and TLS, and what it refuses")
struct WebhookClientTests {
    private static func client(_ change: (inout WebhookSettings) -> Void = { _ in }) throws -> WebhookClient {
        var settings = WebhookSettings()
        settings.allowPrivateAddresses = true
        change(&settings)
        return try WebhookClient(settings: settings)
    }

    private static let body = Array(#"{"id":"evt_1"}"#.utf8)

    @Test("https: the certificate is verified against the CA file (by name and by IP), and refused without it")
    func https() async throws {
        let credentials = try TestSandboxCredentials.fresh(prefix: "herald-webhook-tls")
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        let receiver = try WebhookReceiver.start(tls: credentials.tls)
        let trusting = try Self.client { $0.caFile = credentials.tls.certificatePath }
        for host in ["localhost", "127.0.0.1"] {
            let url = try WebhookURL("https://\(host):\(receiver.port)/tls?q=1")
            let outcome = await trusting.post(to: url, headers: [("X-Test", "1")], body: Self.body)
            #expect(outcome == .answered(status: 200), "\(host)")
        }
        let request = try #require(receiver.received.first)
        #expect(request.path == "/tls?q=1" && request.body == Self.body && request.header("x-test") == "1")
        #expect(request.authority == "localhost:\(receiver.port)")

        let untrusting = try Self.client()
        let refused = await untrusting.post(
            to: try WebhookURL("https://localhost:\(receiver.port)/"), headers: [], body: Self.body)
        guard case .failed(let reason) = refused else {
            Issue.record("a self-signed receiver was trusted: \(refused)")
            return
        }
        #expect(reason.hasPrefix("TLS: certificate problem"), "\(reason)")
        #expect(receiver.received.count == 2)
        await receiver.stop()

        #expect(throws: WebhookSettingsError.self) { try Self.client { $0.caFile = "/nonexistent/ca.pem" } }
    }

    @Test("a slow receiver times out; a closed port is a refused connection; a redirect is an answer, never followed")
    func failures() async throws {
        let receiver = try WebhookReceiver.start()
        receiver.script([.slow(.seconds(3), 200), .status(302, headers: [HTTP2Header("location", "/elsewhere")])])
        let client = try Self.client { $0.timeout = 0.3 }
        // The client's own verdict says it gave up at its deadline (no wall-clock threshold here:
        // the machines are shared and noisy); the receiver would have answered 200 after 3 s.
        let slow = await client.post(to: try WebhookURL(receiver.url()), headers: [], body: Self.body)
        #expect(slow == .failed("timed out after 0.3 s"), "\(slow)")
        // Patient enough for a loaded machine.
        let patient = try Self.client { $0.timeout = 10 }
        let redirect = await patient.post(to: try WebhookURL(receiver.url()), headers: [], body: Self.body)
        #expect(redirect == .answered(status: 302))
        try await Task.sleep(for: .milliseconds(100))
        #expect(receiver.received.map(\.path) == ["/hooks", "/hooks"], "the redirect was not followed")
        await receiver.stop()

        let closed = try LoopbackPort.unused()
        let refused = await patient.post(
            to: try WebhookURL("http://127.0.0.1:\(closed)/"), headers: [], body: Self.body)
        guard case .failed(let reason) = refused else {
            Issue.record("a closed port answered: \(refused)")
            return
        }
        #expect(reason.contains("could not connect to 127.0.0.1 port \(closed)"), "\(reason)")
    }

    @Test("without the flag the client refuses a loopback literal and a name resolving to loopback before connecting")
    func refusedBeforeConnecting() async throws {
        let client = try Self.client { $0.allowPrivateAddresses = false }
        for (url, text) in [
            ("http://127.0.0.1:9/", "refused: 127.0.0.1 is loopback (127.0.0.0/8)"),
            ("http://localhost:9/", "refused: localhost resolves to"),
            ("http://0x7f.1:9/", "refused: 0x7f.1 resolves to 127.0.0.1, which is loopback"),
        ] {
            let outcome = await client.post(to: try WebhookURL(url), headers: [], body: Self.body)
            guard case .failed(let reason) = outcome else {
                Issue.record("\(url) was not refused: \(outcome)")
                continue
            }
            #expect(reason.hasPrefix(text), "\(url): \(reason)")
        }
    }

    @Test(
        "the response parser: Content-Length, chunked with extensions and trailers, until close, 1xx, limits, malformed"
    )
    func parser() throws {
        func parse(_ text: String, maxHead: Int = 1_024, maxBody: Int = 1_024, split: Int = 1) throws
            -> HTTP1ResponseParser
        {
            var parser = HTTP1ResponseParser(maxHeadBytes: maxHead, maxBodyBytes: maxBody)
            let bytes = Array(text.utf8)
            // Fed a few bytes at a time, as a socket may hand them over.
            for start in stride(from: 0, to: bytes.count, by: split) where !parser.isComplete {
                try parser.consume(bytes[start..<min(start + split, bytes.count)])
            }
            return parser
        }
        let length = try parse("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello", split: 3)
        #expect(length.status == 201 && length.isComplete)
        let partial = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel")
        #expect(partial.status == 200 && !partial.isComplete)
        let chunked = try parse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: y\r\n\r\n",
            split: 2)
        #expect(chunked.status == 200 && chunked.isComplete)
        let open = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
        #expect(!open.isComplete)
        let interim = try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        #expect(interim.status == 204 && interim.isComplete)
        let untilClose = try parse("HTTP/1.0 500 Oops\r\n\r\nsome body")
        #expect(untilClose.status == 500 && !untilClose.isComplete)
        let capped = try parse(
            "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 64), maxBody: 32)
        #expect(capped.isComplete, "the body is read up to the limit, then the connection may close")
        let cappedChunks = try parse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + String(repeating: "x", count: 64),
            maxBody: 32)
        #expect(cappedChunks.isComplete)

        // Kept (the command line's publisher calls): the body's bytes without chunk framing, up to the limit.
        func kept(_ text: String, maxBody: Int = 1_024, split: Int = 1) throws -> String {
            var parser = HTTP1ResponseParser(maxHeadBytes: 1_024, maxBodyBytes: maxBody, keepingBody: true)
            let bytes = Array(text.utf8)
            for start in stride(from: 0, to: bytes.count, by: split) where !parser.isComplete {
                try parser.consume(bytes[start..<min(start + split, bytes.count)])
            }
            return String(decoding: parser.body, as: UTF8.self)
        }
        #expect(try kept("HTTP/1.1 202 Accepted\r\nContent-Length: 5\r\n\r\nhelloXYZ", split: 3) == "hello")
        #expect(
            try kept(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n",
                split: 2) == "hello0123456789")
        #expect(try kept("HTTP/1.0 500 Oops\r\n\r\nsome body") == "some body")
        #expect(
            try kept("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 64), maxBody: 32)
                == String(repeating: "x", count: 32))
        #expect(
            try kept("HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "y", count: 64), maxBody: 10, split: 7)
                == "yyyyyyyyyy")
        #expect(try parse("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello").body.isEmpty, "dropped unless kept")
        // Whether what was read is the whole body: the client refuses a kept body that is not.
        let whole = try parse("HTTP/1.1 202 Accepted\r\nContent-Length: 5\r\n\r\nhello")
        #expect(whole.isComplete && !whole.truncated && !whole.endsAtClose)
        #expect(!partial.isComplete && !partial.truncated && !partial.endsAtClose, "a close now cuts the body")
        #expect(untilClose.endsAtClose && !untilClose.truncated, "a close ends this body whole")
        #expect(capped.truncated && cappedChunks.truncated)
        #expect(!chunked.truncated && !interim.truncated)
        let exactlyAtLimit = try parse(
            "HTTP/1.1 200 OK\r\nContent-Length: 32\r\n\r\n" + String(repeating: "x", count: 32), maxBody: 32)
        #expect(exactlyAtLimit.isComplete && !exactlyAtLimit.truncated)

        for (bad, reason) in [
            ("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 2_000) + "\r\n\r\n", "over 1024 bytes"),
            ("HTTP/2 200\r\n\r\n", "bad status line"), ("HTTP/1.1 2000 OK\r\n\r\n", "bad status line"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", "bad Content-Length"),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length"),
            ("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "bad header line"),
            ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "bad header name"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", "not followed by CRLF"),
        ] {
            let error = #expect(throws: HTTP1ResponseParser.Malformed.self, "\(reason)") { try parse(bad) }
            #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        }
    }

    @Test("URLs: http and https only, a host, a port, the path and query as the target, the Host header")
    func urls() throws {
        let plain = try WebhookURL("HTTP://Example.COM/a/b?c=d")
        #expect(!plain.secure && plain.host == "example.com" && plain.port == 80 && plain.target == "/a/b?c=d")
        #expect(plain.authority == "example.com")
        let query = try WebhookURL("https://example.com?x=1")
        #expect(query.secure && query.port == 443 && query.target == "/?x=1")
        let v6 = try WebhookURL("https://[2001:4860::8888]:8443")
        #expect(v6.host == "2001:4860::8888" && v6.port == 8443 && v6.target == "/")
        #expect(v6.authority == "[2001:4860::8888]:8443")
        for bad in [
            "ws://example.com/", "https://u@example.com/", "https://example.com/#x", "https://example.com:/",
            "https://[fe80::1%25eth0]/", "https://exam_ple.com\u{7F}/", "https://例え.jp/", "//example.com/",
        ] {
            #expect(throws: WebhookURL.Invalid.self, "\(bad)") { try WebhookURL(bad) }
        }
    }

    @Test("the address policy refuses every non-public range, IPv4 inside IPv6 judged by the IPv4 address")
    func addressPolicy() {
        func v4(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0)! } }
        func v6(_ text: String) -> [UInt8] {
            var address = in6_addr()
            _ = inet_pton(AF_INET6, text, &address)
            return withUnsafeBytes(of: address) { Array($0) }
        }
        for refused in [
            "0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.255", "127.0.0.1", "127.255.0.1",
            "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.1", "192.168.0.1", "198.18.0.1",
            "198.51.100.7", "203.0.113.9", "224.0.0.251", "239.255.255.250", "240.0.0.1", "255.255.255.255",
        ] {
            #expect(WebhookAddressPolicy.refusal(v4(refused)) != nil, "\(refused)")
        }
        for allowed in [
            "8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "1.1.1.1",
        ] {
            #expect(WebhookAddressPolicy.refusal(v4(allowed)) == nil, "\(allowed)")
        }
        for refused in [
            "::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b:1::1", "2002:c0a8:101::1", "2001::1", "2001:db8::1", "fc00::1", "fdff::1", "fe80::1", "febf::1",
            "fec0::1", "ff02::1", "100::1",
        ] {
            #expect(WebhookAddressPolicy.refusal(v6(refused)) != nil, "\(refused)")
        }
        for allowed in [
            "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
        ] {
            #expect(WebhookAddressPolicy.refusal(v6(allowed)) == nil, "\(allowed)")
        }
        #expect(WebhookAddressPolicy.refusal(v4("169.254.169.254"))?.contains("metadata") == true)
    }
}
