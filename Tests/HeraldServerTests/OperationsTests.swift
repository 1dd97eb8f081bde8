import Foundation
import HeraldHTTPTestSupport
import HeraldServer
import HeraldTestSupport
import Testing

@Suite("Operations and HTTP behaviour")
struct OperationsTests {
    @Test("healthz, readyz and metrics answer; metrics count requests by route and status with a histogram")
    func healthAndMetrics() async throws {
        try await withServer { server in
            #expect(try await server.get("/healthz").object["status"] as? String == "ok")
            #expect(try await server.get("/readyz").object["status"] as? String == "ready")
            _ = try await server.get("/v1/me/notifications/abc", token: try server.token("alice"))
            _ = try await server.get("/nope")
            let metrics = try await server.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains(#"herald_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
            #expect(
                text.contains(
                    #"herald_http_requests_total{method="GET",route="/v1/me/notifications/{id}",status="404"} 1"#))
            #expect(text.contains(#"route="unmatched",status="404""#))
            #expect(text.contains(#"herald_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 1"#))
            #expect(text.contains("herald_live_streams 0\n"))
        }
    }

    @Test("the routes the server serves and the paths openapi.json lists are the same set")
    func openAPIMatchesRoutes() async throws {
        try await withServer { server in
            let response = try await server.get("/openapi.json")
            #expect(response.status == 200)
            let document = response.object
            #expect((document["openapi"] as? String)?.hasPrefix("3.") == true)
            let paths = document["paths"] as? [String: [String: Any]] ?? [:]
            let methods: Set = ["get", "post", "put", "patch", "delete"]
            let documented = Set(
                paths.flatMap { path, operations in
                    operations.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
                })
            let served = Set(server.app.routes.map { "\($0.method.rawValue) \($0.pattern)" })
            #expect(
                documented == served,
                "only served: \(served.subtracting(documented)), only documented: \(documented.subtracting(served))")
            // Any request can time out and any store call can find the database gone: every
            // operation documents a 503.
            for (path, operations) in paths {
                for (method, operation) in operations where methods.contains(method) {
                    let responses = (operation as? [String: Any])?["responses"] as? [String: Any]
                    #expect(responses?["503"] != nil, "\(method) \(path) has no 503")
                }
            }
            let components = (document["components"] as? [String: Any])?["responses"] as? [String: Any]
            #expect(components?["Unavailable"] != nil)
        }
    }

    @Test("unknown routes answer 404 and wrong methods 405, both with the JSON error shape")
    func unknownAndWrongMethod() async throws {
        try await withServer { server in
            expectError(try await server.get("/v2/whatever"), 404, "not_found")
            let wrong = try await server.send("PUT", "/v1/me/counts", json: "{}", token: try server.token("alice"))
            expectError(wrong, 405, "method_not_allowed")
            #expect(wrong.header("Allow")?.contains("GET") == true)
        }
    }

    @Test("a body over the limit answers 413 payload_too_large and writes nothing")
    func bodyLimit() async throws {
        try await withServer(configure: { $0.maxBodyBytes = 4096 }) { server in
            let key = try await server.apiKey()
            let big =
                #"{"recipients":["alice"],"type":"order.x","title":"t","body":"\#(String(repeating: "x", count: 5000))"}"#
            expectError(
                try await server.send("POST", "/v1/notifications", json: big, token: key), 413, "payload_too_large")
            let counts = try await server.get("/v1/me/counts", token: try server.token("alice")).object
            #expect(counts["unread"] as? Int == 0)
        }
    }

    @Test("every answer carries a request id, echoing a sane one the client sent")
    func requestID() async throws {
        try await withServer { server in
            let generated = try await server.get("/healthz")
            #expect((generated.header("X-Request-Id") ?? "").count >= 8)
            let echoed = try await server.get("/healthz", headers: [("X-Request-Id", "trace-123")])
            #expect(echoed.header("X-Request-Id") == "trace-123")
        }
    }

    @Test("the user-token secret is generated once and kept in the database across restarts")
    func generatedSecretPersists() async throws {
        let scratch = try TemporaryDirectory("herald-secret")
        defer { scratch.remove() }
        let directory = scratch.url
        var configuration = HeraldConfiguration()
        configuration.port = 0
        configuration.databaseURL = "sqlite:" + directory.appendingPathComponent("h.db").path
        let first = try await HeraldApplication(configuration: configuration)
        let token = try first.userToken(for: "alice")
        let second = try await HeraldApplication(configuration: configuration)
        try second.start()
        let response = try await LoopbackHTTPClient(port: second.port).request(
            "GET", "/v1/me/counts", headers: [("Authorization", "Bearer \(token)")])
        await second.stop()
        #expect(response.status == 200)
    }
}
