import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldHTTP

/// The transport's protections, over raw loopback sockets: strict framing (RFC 9112), request
/// head and body deadlines, a 413 the client can read, per-address connection caps, encoded
/// slashes in path segments, and transport answers reaching the responder's logging.
@Suite struct ProtectionTests {
    /// A server whose one route records what it served and echoes a header.
    private static func routes(_ served: Collector<String>) -> (inout Router) -> Void {
        { router in
            router.add(.GET, "/echo") { request, _ in
                served.append("GET /echo")
                return .text(request.headers["X-Probe"] ?? "-")
            }
            router.add(.POST, "/upload") { request, _ in
                served.append("POST /upload \(request.body.count)")
                return .text("got \(request.body.count)")
            }
            router.add(.DELETE, "/devices/{token}") { _, context in
                served.append("DELETE \(context.parameters["token"] ?? "?")")
                return .text(context.parameters["token"] ?? "?")
            }
        }
    }

    @Test(arguments: [
        (
            "two Content-Lengths",
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello", 400
        ),
        (
            "equal Content-Lengths",
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400
        ),
        (
            "Content-Length and chunked",
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        ("gzip coding", "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        (
            "gzip then chunked",
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501
        ),
        (
            "chunked twice",
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            400
        ),
        ("chunked on HTTP/1.0", "POST /upload HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("folded Content-Length", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n 0\r\n\r\n0123456789", 400),
        (
            "folded Transfer-Encoding",
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chun\r\n ked\r\n\r\n0\r\n\r\n", 400
        ),
        ("folded Host", "GET /echo HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", 400),
        ("no Host on HTTP/1.1", "GET /echo HTTP/1.1\r\n\r\n", 400),
        ("two Hosts", "GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        (
            "space before the colon",
            "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400
        ),
        ("space inside a name", "GET /echo HTTP/1.1\r\nHost: x\r\nX Probe: y\r\n\r\n", 400),
    ])
    func badFramingIsRefusedAndTheConnectionCloses(name: String, head: String, status: Int) async throws {
        let served = Collector<String>()
        try await withServer(routes: Self.routes(served)) { server in
            // A second request rides behind the bad one: it must not be served either.
            let smuggled = "GET /echo HTTP/1.1\r\nHost: x\r\nX-Probe: smuggled\r\n\r\n"
            let connection = try await server.client.openConnection()
            defer { connection.close() }
            try await connection.send(head + smuggled)
            let response = try await connection.readResponse(method: head.hasPrefix("GET") ? "GET" : "POST")
            #expect(response.status == status, "\(name)")
            #expect(response.errorCode == (status == 501 ? "not_implemented" : "bad_request"), "\(name)")
            #expect(response.header("Connection")?.lowercased() == "close", "\(name)")
            #expect(try await connection.waitForClose(), "\(name)")
            #expect(served.values.isEmpty, "\(name): \(served.values)")
        }
    }

    @Test func soundFramingIsServed() async throws {
        let served = Collector<String>()
        try await withServer(routes: Self.routes(served)) { server in
            let http10 = try await server.client.rawRequest(Array("GET /echo HTTP/1.0\r\n\r\n".utf8))
            #expect(http10.status == 200)
            let chunked = try await server.client.rawRequest(
                Array(
                    "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                        .utf8))
            #expect(chunked.text == "got 3")
            let folded = try await server.client.rawRequest(
                Array("GET /echo HTTP/1.1\r\nHost: x\r\nX-Probe: a\r\n b\r\nConnection: close\r\n\r\n".utf8))
            #expect(folded.status == 200)
            #expect(served.values == ["GET /echo", "POST /upload 3", "GET /echo"])
        }
    }

    @Test func aTooLargeBodyIsReadAndItsAnswerDelivered() async throws {
        let served = Collector<String>()
        try await withServer { configuration in
            configuration.maxBodyBytes = 64 * 1024
        } routes: { router in
            Self.routes(served)(&router)
        } _: { server in
            // Like Python's http.client: the whole body is sent before the answer is read.
            let body = [UInt8](repeating: 0x61, count: 200 * 1024)
            for attempt in 0..<20 {
                let head = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n"
                let response = try await server.client.rawRequest(Array(head.utf8) + body, method: "POST")
                #expect(response.status == 413, "attempt \(attempt)")
                #expect(response.errorCode == "payload_too_large")
            }
            // One that waits for 100 Continue is refused before it sends anything.
            let waiting = try await server.client.rawRequest(
                Array(
                    "POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 200000\r\n\r\n".utf8),
                method: "POST")
            #expect(waiting.status == 413)
            // Far past what is worth reading: answered at once, the body never read.
            let huge = try await server.client.rawRequest(
                Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n".utf8), method: "POST")
            #expect(huge.status == 413)
            #expect(served.values.isEmpty)
        }
    }

    @Test func aTricklingHeadIsCutOffAtItsDeadlineWhileOthersAreServed() async throws {
        let served = Collector<String>()
        try await withServer { configuration in
            configuration.headTimeout = .milliseconds(800)
        } routes: { router in
            Self.routes(served)(&router)
        } _: { server in
            let slow = try await server.client.openConnection()
            defer { slow.close() }
            let started = ContinuousClock.now
            // One header byte every 100 ms would take 30 s to finish this head.
            let head = Array(
                "GET /echo HTTP/1.1\r\nHost: x\r\nX-Probe: \(String(repeating: "s", count: 300))\r\n\r\n".utf8)
            var sent = 0
            var cutOff = false
            while sent < head.count {
                do {
                    try await slow.send([head[sent]])
                } catch {
                    cutOff = true
                    break
                }
                sent += 1
                if sent % 3 == 0 {
                    // Meanwhile another client is served.
                    let other = try await server.client.request("GET", "/echo")
                    #expect(other.status == 200)
                }
                try await Task.sleep(for: .milliseconds(100))
                if ContinuousClock.now - started > .seconds(10) { break }
            }
            let response = try? await slow.readResponse()
            #expect(response?.status == 408)
            #expect(response?.errorCode == "request_timeout")
            #expect(try await slow.waitForClose())
            #expect(cutOff || sent < head.count, "the whole head went through (\(sent) bytes)")
            #expect(!served.values.contains { $0 != "GET /echo" })
        }
    }

    @Test func aTricklingBodyIsCutOffAtItsDeadline() async throws {
        let served = Collector<String>()
        try await withServer { configuration in
            configuration.bodyTimeout = .milliseconds(800)
        } routes: { router in
            Self.routes(served)(&router)
        } _: { server in
            let slow = try await server.client.openConnection()
            defer { slow.close() }
            try await slow.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
            let started = ContinuousClock.now
            var cutOff = false
            for _ in 0..<100 {
                do {
                    try await slow.send("b")
                } catch {
                    cutOff = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
                if ContinuousClock.now - started > .seconds(10) { break }
            }
            let response = try? await slow.readResponse(method: "POST")
            #expect(response?.status == 408)
            #expect(try await slow.waitForClose())
            _ = cutOff
            #expect(served.values.isEmpty)
        }
    }

    @Test func oneAddressCannotHoldEverySlot() async throws {
        let served = Collector<String>()
        try await withServer { configuration in
            configuration.connectionsPerAddress = 4
        } routes: { router in
            Self.routes(served)(&router)
        } _: { server in
            var held: [LoopbackConnection] = []
            for _ in 0..<4 { held.append(try await server.client.openConnection()) }
            // Each held connection is accepted: it is answered on request.
            try await held[0].send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await held[0].readResponse().status == 200)
            // A fifth from the same address is closed without an answer.
            let fifth = try await server.client.openConnection()
            try? await fifth.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect((try? await fifth.readResponse()) == nil)
            fifth.close()
            // Another address is still served.
            var other = server.client
            other.sourceAddress = "127.0.0.2"
            #expect(try await other.request("GET", "/echo").status == 200)
            for connection in held { connection.close() }
        }
    }

    @Test func anEncodedSlashStaysInsideItsSegment() async throws {
        let served = Collector<String>()
        try await withServer(routes: Self.routes(served)) { server in
            let response = try await server.client.request("DELETE", "/devices/abc%2Fdef%3D%3D")
            #expect(response.status == 200)
            #expect(response.text == "abc/def==")
            let split = try await server.client.request("DELETE", "/devices/abc/def")
            #expect(split.status == 404)
        }
    }

    @Test func effectiveConnectionLimitFollowsTheOpenFilesLimit() {
        let derived = HTTPServerConfiguration()
        #expect(derived.effectiveConnectionLimit(openFiles: 1024) == 768)
        #expect(derived.effectiveConnectionLimit(openFiles: 65_536) == 65_280)
        #expect(derived.effectiveConnectionLimit(openFiles: 256) == 128)
        var fixed = HTTPServerConfiguration()
        fixed.connectionLimit = 50_000
        #expect(fixed.effectiveConnectionLimit(openFiles: 1024) == 768)
        #expect(fixed.effectiveConnectionLimit(openFiles: 100_000) == 50_000)
    }
}

/// Counts what the transport reports as answered by itself.
private struct ReportingResponder: Responder {
    let router: Router
    let reported: Collector<Int>

    func respond(to request: Request, context: RequestContext) async throws -> Response {
        try await router.respond(to: request, context: context)
    }

    func transportAnswered(_ request: Request, with response: Response, context: RequestContext) async {
        reported.append(response.status)
    }
}

@Suite struct TransportAnswerReportTests {
    @Test func transportAnswersReachTheResponder() async throws {
        let reported = Collector<Int>()
        var router = Router()
        router.add(.POST, "/upload") { _, _ in .text("ok") }
        let server = try TestServer(
            responder: ReportingResponder(router: router, reported: reported),
            configure: { configuration in
                configuration.maxBodyBytes = 1024
                configuration.headTimeout = .milliseconds(500)
            })
        do {
            let large = try await server.client.rawRequest(
                Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n".utf8)
                    + [UInt8](repeating: 1, count: 2000),
                method: "POST")
            #expect(large.status == 413)
            let framing = try await server.client.rawRequest(Array("GET /upload HTTP/1.1\r\n\r\n".utf8))
            #expect(framing.status == 400)
            let silent = try await server.client.openConnection()
            #expect(try await silent.readResponse().status == 408)
            #expect(try await silent.waitForClose())
            try await eventually("400, 408 and 413 are reported") { reported.values.sorted() == [400, 408, 413] }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func answersTheLibraryGivesItselfReachTheResponderOnce() async throws {
        let reported = Collector<Int>()
        var router = Router()
        router.add(.GET, "/ok") { _, _ in .text("ok") }
        router.add(.POST, "/upload") { _, _ in .text("ok") }
        let server = try TestServer(
            responder: ReportingResponder(router: router, reported: reported),
            configure: { configuration in configuration.maxBodyBytes = 1024 })
        do {
            // Each is refused by libmicrohttpd before (or instead of) any handler call.
            let refused: [(String, Int)] = [
                ("GET /ok\r\nHost: x\r\n\r\n", 400),  // no version: before the request line is read
                ("GET /ok HTTP/2.0\r\nHost: x\r\n\r\n", 505),
                ("GET /\(String(repeating: "u", count: 70_000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
                ("GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 70_000))\r\n\r\n", 431),
                ("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
                ("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nab\r\n0\r\n\r\n", 400),
            ]
            for (head, status) in refused {
                let response = try await server.client.rawRequest(Array(head.utf8), method: "POST")
                #expect(response.status == status, "\(head.prefix(40))")
                // Served requests in between are not reported as transport answers.
                #expect(try await server.client.request("GET", "/ok").status == 200)
            }
            try await eventually("the refusals are reported") { reported.values.count >= refused.count }
            // A last transport answer of our own (a 413): once it is in, the others have been told.
            let sentinel = try await server.client.rawRequest(
                Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n".utf8)
                    + [UInt8](repeating: 1, count: 2000), method: "POST")
            #expect(sentinel.status == 413)
            try await eventually("the 413 is reported") { reported.values.contains(413) }
            #expect(reported.values.sorted() == (refused.map(\.1) + [413]).sorted(), "\(reported.values)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
