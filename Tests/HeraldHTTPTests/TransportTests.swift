import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldHTTP

/// The libmicrohttpd transport: limits, ids, timeouts, ports, connections.
@Suite struct TransportTests {
    @Test func portZeroPicksAFreePortAndABusyPortIsAClearError() async throws {
        try await withServer { router in
            router.add(.GET, "/") { _, _ in .text("root") }
        } _: { server in
            #expect(server.server.port > 0)
            let root = try await server.client.request("GET", "/")
            #expect(root.text == "root")

            var configuration = HTTPServerConfiguration(port: server.server.port)
            configuration.threadPoolSize = 1
            let second = HTTPServer(
                configuration: configuration, responder: Router(), logger: Logger(label: "t", handler: NullLogHandler())
            )
            let error = #expect(throws: HTTPServerError.self) { try second.start() }
            #expect(error?.code == .addressInUse)
            #expect(error?.description.contains("already in use") == true)
        }
    }

    @Test func bodyOverLimitByContentLengthIs413BeforeReadingWhenTheClientWaits() async throws {
        let called = Collector<Int>()
        try await withServer { configuration in
            configuration.maxBodyBytes = 1000
        } routes: { router in
            router.add(.POST, "/upload") { request, _ in
                called.append(request.body.count)
                return .text("got \(request.body.count)")
            }
        } _: { server in
            // Only the head is sent, waiting for 100 Continue: the server must answer without
            // waiting for the body.
            let head =
                "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\nX-Request-Id: big-1\r\n\r\n"
            let refused = try await server.client.rawRequest(Array(head.utf8))
            #expect(refused.status == 413)
            #expect(refused.errorCode == "payload_too_large")
            #expect(refused.header("X-Request-Id") == "big-1")

            let atLimit = try await server.client.request("POST", "/upload", body: [UInt8](repeating: 7, count: 1000))
            #expect(atLimit.status == 200)
            #expect(atLimit.text == "got 1000")
            #expect(called.values == [1000])
        }
    }

    @Test func chunkedBodyOverLimitIs413() async throws {
        let called = Collector<Int>()
        try await withServer { configuration in
            configuration.maxBodyBytes = 1000
        } routes: { router in
            router.add(.POST, "/upload") { request, _ in
                called.append(request.body.count)
                return .text(String(decoding: request.body, as: UTF8.self))
            }
        } _: { server in
            func chunked(_ chunks: [String]) -> [UInt8] {
                var text = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                for chunk in chunks { text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
                text += "0\r\n\r\n"
                return Array(text.utf8)
            }
            let small = try await server.client.rawRequest(chunked(["hello ", "chunked ", "world"]))
            #expect(small.status == 200)
            #expect(small.text == "hello chunked world")

            let piece = String(repeating: "x", count: 400)
            let large = try await server.client.rawRequest(chunked([piece, piece, piece]))
            #expect(large.status == 413)
            #expect(large.errorCode == "payload_too_large")
            #expect(called.values == [19])
        }
    }

    @Test func requestIDIsEchoedOrGenerated() async throws {
        let seen = Collector<String>()
        try await withServer { router in
            router.add(.GET, "/id") { _, context in
                seen.append(context.requestID)
                return .text(context.logger.metadata["request_id"] ?? "")
            }
        } _: { server in
            let echoed = try await server.client.request("GET", "/id", headers: [("X-Request-Id", "client-abc_123")])
            #expect(echoed.header("X-Request-Id") == "client-abc_123")
            #expect(echoed.text == "client-abc_123")

            let generated = try await server.client.request("GET", "/id")
            let id = try #require(generated.header("X-Request-Id"))
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            #expect(generated.text == id)

            let insane = try await server.client.request(
                "GET", "/id", headers: [("X-Request-Id", String(repeating: "a", count: 129))])
            #expect(insane.header("X-Request-Id")?.count == 32)
            let spaced = try await server.client.request("GET", "/id", headers: [("X-Request-Id", "has space")])
            #expect(spaced.header("X-Request-Id") != "has space")

            let missing = try await server.client.request("GET", "/nowhere", headers: [("X-Request-Id", "lost-1")])
            #expect(missing.header("X-Request-Id") == "lost-1")
            #expect(seen.values.count == 4)
        }
    }

    @Test func slowHandlerTimesOutWith503AndIsCancelled() async throws {
        let cancelled = Gate()
        try await withServer { configuration in
            // Long enough that `/fast` answers in time on a loaded machine (600 ms was not, with
            // the whole suite running beside it).
            configuration.requestTimeout = .seconds(3)
        } routes: { router in
            router.add(.GET, "/slow") { _, _ in
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    cancelled.open()
                    throw error
                }
                return .text("late")
            }
            router.add(.GET, "/fast") { _, _ in .text("fast") }
        } _: { server in
            let response = try await server.client.request("GET", "/slow", headers: [("X-Request-Id", "slow-1")])
            #expect(response.status == 503)
            #expect(response.errorCode == "timeout")
            #expect(response.header("X-Request-Id") == "slow-1")
            await cancelled.wait()
            #expect(try await server.client.request("GET", "/fast").text == "fast")
            #expect(server.logs.entries("request timed out").count == 1)
        }
    }

    @Test func keepAliveConnectionServesSeveralRequests() async throws {
        try await withServer { router in
            router.add(.POST, "/echo") { request, _ in
                Response(status: 200, body: .bytes(request.body))
            }
        } _: { server in
            let connection = try await server.client.openConnection()
            defer { connection.close() }
            for index in 0..<3 {
                let body = "message \(index)"
                try await connection.send(
                    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                let response = try await connection.readResponse()
                #expect(response.status == 200)
                #expect(response.text == body)
            }
        }
    }

    @Test func expectContinueUpload() async throws {
        try await withServer { router in
            router.add(.PUT, "/blob") { request, _ in .text("\(request.body.count)") }
        } _: { server in
            let connection = try await server.client.openConnection()
            defer { connection.close() }
            try await connection.send(
                "PUT /blob HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            try await connection.send("12345")
            let response = try await connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "5")
        }
    }

    @Test func malformedRequestIsRejectedWithoutLeaks() async throws {
        try await withServer { router in
            router.add(.GET, "/") { _, _ in .text("root") }
        } _: { server in
            let response = try await server.client.rawRequest(
                Array("GET / HTTP/1.1\r\nBad Header Without Colon\r\n\r\n".utf8))
            #expect(response.status == 400)
            let fine = try await server.client.request("GET", "/")
            #expect(fine.status == 200)
            try await eventually("no request state is left") { server.server.liveRequestStates == 0 }
        }
    }

    @Test func requestStateIsReleasedForEveryKindOfRequest() async throws {
        try await withServer { configuration in
            configuration.maxBodyBytes = 10
            // Long enough that quick handlers answer in time on a loaded machine.
            configuration.requestTimeout = .seconds(3)
        } routes: { router in
            router.add(.GET, "/ok") { _, _ in .text("ok") }
            router.add(.POST, "/ok") { _, _ in .text("ok") }
            router.add(.GET, "/slow") { _, _ in
                try await Task.sleep(for: .seconds(60))
                return .text("late")
            }
            router.add(.GET, "/stream") { _, _ in
                let stream = ResponseStream()
                stream.write(Array("data: x\n\n".utf8))
                stream.finish()
                return .eventStream(stream)
            }
        } _: { server in
            for _ in 0..<3 {
                #expect(try await server.client.request("GET", "/ok").status == 200)
                #expect(
                    try await server.client.request("POST", "/ok", body: Array(repeating: 1, count: 50)).status == 413)
                #expect(try await server.client.request("GET", "/slow").status == 503)
                #expect(try await server.client.request("GET", "/stream").text == "data: x\n\n")
                #expect(try await server.client.request("GET", "/missing").status == 404)
            }
            let core = try #require(server.server.core)
            try await eventually("no request state or open stream is left") {
                server.server.liveRequestStates == 0 && core.openStreams == 0
            }
        }
    }

    @Test func largeBodiesBothWays() async throws {
        try await withServer { configuration in
            configuration.maxBodyBytes = 2_000_000
        } routes: { router in
            router.add(.POST, "/reverse") { request, _ in
                Response(status: 200, body: .bytes(request.body.reversed()))
            }
            router.add(.GET, "/big") { _, _ in
                Response(status: 200, body: .bytes((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0) }))
            }
        } _: { server in
            let upload = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let reversed = try await server.client.request("POST", "/reverse", body: upload)
            #expect(reversed.status == 200)
            #expect(reversed.body == upload.reversed())
            let big = try await server.client.request("GET", "/big")
            #expect(big.body.count == 3_000_000)
            #expect(big.body.last == UInt8(truncatingIfNeeded: 2_999_999))
        }
    }

    @Test func bindsLocalhostOnIPv4() async throws {
        try await withServer { configuration in
            configuration.host = "localhost"
        } routes: { router in
            router.add(.GET, "/") { _, _ in .text("v4") }
        } _: { server in
            let response = try await server.client.request("GET", "/")
            #expect(response.text == "v4")
        }
    }

    @Test func startingTwiceIsAnError() async throws {
        try await withServer { router in
            router.add(.GET, "/") { _, _ in .text("x") }
        } _: { server in
            let error = #expect(throws: HTTPServerError.self) { try server.server.start() }
            #expect(error?.code == .alreadyStarted)
        }
    }
}
