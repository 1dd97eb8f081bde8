import Foundation
import HeraldHTTPTestSupport
import Testing

@testable import HeraldHTTP

/// Routing and error mapping, over real loopback sockets.
@Suite struct RoutingTests {
    @Test func routeParametersAndLiteralPriority() async throws {
        try await withServer { router in
            router.add(.GET, "/v1/items/{id}") { _, context in
                .text("item \(context.parameters["id"]!) via \(context.route!)")
            }
            router.add(.GET, "/v1/items/special") { _, context in
                .text("special via \(context.route!)")
            }
            router.add(.GET, "/v1/users/{user}/items/{item}") { _, context in
                .text("\(context.parameters["user"]!)/\(context.parameters["item"]!)")
            }
        } _: { server in
            let item = try await server.client.request("GET", "/v1/items/abc")
            #expect(item.status == 200)
            #expect(item.text == "item abc via /v1/items/{id}")
            let special = try await server.client.request("GET", "/v1/items/special")
            #expect(special.text == "special via /v1/items/special")
            let nested = try await server.client.request("GET", "/v1/users/u%201/items/i2")
            #expect(nested.text == "u 1/i2")
        }
    }

    @Test func unknownPathIs404JSON() async throws {
        try await withServer { router in
            router.add(.GET, "/known") { _, _ in .text("ok") }
        } _: { server in
            let response = try await server.client.request("GET", "/nope/deeper")
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.text == #"{"error":{"code":"not_found","message":"No route for /nope/deeper."}}"#)
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withServer { router in
            router.add(.GET, "/things/{id}") { _, _ in .text("get") }
            router.add(.DELETE, "/things/{id}") { _, _ in .noContent() }
        } _: { server in
            let response = try await server.client.request("POST", "/things/1", body: Array("{}".utf8))
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, DELETE, HEAD")
            #expect(response.errorCode == "method_not_allowed")
        }
    }

    @Test func headIsAnsweredByTheGetRoute() async throws {
        try await withServer { router in
            router.add(.GET, "/doc") { _, _ in .text("twelve bytes") }
        } _: { server in
            let head = try await server.client.request("HEAD", "/doc")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "12")
            #expect(head.body.isEmpty)
            let get = try await server.client.request("GET", "/doc")
            #expect(get.text == "twelve bytes")
        }
    }

    struct Note: Codable, Equatable {
        var title: String
        var tags: [String]
        var due: Date
    }

    @Test func jsonRoundTrip() async throws {
        try await withServer { router in
            router.add(.POST, "/notes") { request, _ in
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                var note = try decoder.decode(Note.self, from: Data(request.body))
                note.tags.append("seen")
                return try .json(note, status: 201)
            }
        } _: { server in
            let sent = Note(title: "Hello \"world\" ✓", tags: ["a"], due: Date(timeIntervalSince1970: 1_700_000_000))
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let response = try await server.client.request(
                "POST", "/notes",
                headers: [("Content-Type", "application/json")],
                body: Array(try encoder.encode(sent))
            )
            #expect(response.status == 201)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.text.contains("\"due\":\"2023-11-14T22:13:20Z\""))
            let received = try response.decode(Note.self)
            #expect(received == Note(title: sent.title, tags: ["a", "seen"], due: sent.due))
        }
    }

    @Test func httpErrorBecomesItsJSON() async throws {
        try await withServer { router in
            router.add(.PUT, "/handles/{handle}") { _, _ in
                throw HTTPError(
                    409, code: "handle_taken", message: "That handle is taken.", headers: ["X-Hint": "try another"])
            }
        } _: { server in
            let response = try await server.client.request("PUT", "/handles/bob")
            #expect(response.status == 409)
            #expect(response.header("X-Hint") == "try another")
            #expect(response.text == #"{"error":{"code":"handle_taken","message":"That handle is taken."}}"#)
        }
    }

    struct DatabaseExploded: Error {}

    @Test func unknownErrorIs500AndLogged() async throws {
        try await withServer { router in
            router.add(.GET, "/boom") { _, _ in throw DatabaseExploded() }
        } _: { server in
            let response = try await server.client.request("GET", "/boom", headers: [("X-Request-Id", "boom-1")])
            #expect(response.status == 500)
            #expect(response.errorCode == "internal_error")
            #expect(!response.text.contains("DatabaseExploded"))
            let logged = server.logs.entries("unhandled error")
            #expect(logged.count == 1)
            #expect(logged.first?.level == .error)
            #expect(logged.first?.metadata["request_id"] == "boom-1")
            #expect(logged.first?.metadata["error"]?.contains("DatabaseExploded") == true)
        }
    }

    @Test func queryParametersAreDecoded() async throws {
        try await withServer { router in
            router.add(.GET, "/search") { request, _ in
                try .json(request.query)
            }
        } _: { server in
            let response = try await server.client.request(
                "GET", "/search?a=1&a=2&b=x%20y&c=a+b&d=%E2%9C%93&empty=&flag&e=1%2B1=2")
            let query = try response.decode([String: String].self)
            #expect(query == ["a": "1", "b": "x y", "c": "a b", "d": "✓", "empty": "", "flag": "", "e": "1+1=2"])
        }
    }

    @Test func middlewareRunsInOrderAfterMatching() async throws {
        let trace = Collector<String>()
        struct Recorder: Middleware {
            let name: String
            let trace: Collector<String>
            func handle(
                _ request: Request,
                context: RequestContext,
                next: @Sendable (Request, RequestContext) async throws -> Response
            ) async throws -> Response {
                trace.append("\(name)> \(context.route ?? "nil")")
                do {
                    let response = try await next(request, context)
                    trace.append("\(name)< \(response.status)")
                    return response
                } catch {
                    trace.append("\(name)! \(HTTPError.from(error).status)")
                    throw error
                }
            }
        }
        try await withServer { router in
            router.add(middleware: Recorder(name: "A", trace: trace))
            router.add(middleware: Recorder(name: "B", trace: trace))
            router.add(.GET, "/v1/me/notifications/{id}") { _, context in
                trace.append("handler \(context.parameters["id"]!)")
                return .noContent()
            }
        } _: { server in
            let found = try await server.client.request("GET", "/v1/me/notifications/n1")
            #expect(found.status == 204)
            #expect(
                trace.values == [
                    "A> /v1/me/notifications/{id}", "B> /v1/me/notifications/{id}", "handler n1", "B< 204", "A< 204",
                ])
            let missing = try await server.client.request("GET", "/elsewhere")
            #expect(missing.status == 404)
            #expect(Array(trace.values.suffix(4)) == ["A> nil", "B> nil", "B! 404", "A! 404"])
        }
    }

    @Test func groupMiddlewareRunsAroundItsRoutesOnlyAndPassesValuesInTheContext() async throws {
        struct Caller: Sendable { let name: String }
        /// Lets a request through with its `X-Caller` in the context, or answers 401.
        struct RequireCaller: Middleware {
            func handle(
                _ request: Request,
                context: RequestContext,
                next: @Sendable (Request, RequestContext) async throws -> Response
            ) async throws -> Response {
                guard let name = request.headers["X-Caller"] else {
                    throw HTTPError(401, code: "unauthenticated", message: "Who are you?")
                }
                var context = context
                context[Caller.self] = Caller(name: name)
                return try await next(request, context)
            }
        }
        try await withServer { router in
            router.add(.GET, "/open") { _, context in .text(context[Caller.self]?.name ?? "nobody") }
            router.group(RequireCaller()) { group in
                group.add(.GET, "/closed/{id}") { _, context in
                    .text("\(context[Caller.self]?.name ?? "?") \(context.parameters["id"] ?? "?")")
                }
            }
        } _: { server in
            #expect(try await server.client.request("GET", "/open").text == "nobody")
            let refused = try await server.client.request("GET", "/closed/7")
            #expect(refused.status == 401)
            #expect(refused.errorCode == "unauthenticated")
            let served = try await server.client.request("GET", "/closed/7", headers: [("X-Caller", "ada")])
            #expect(served.text == "ada 7")
            // Matching comes first: a wrong method is 405 before the group's middleware runs.
            #expect(try await server.client.request("POST", "/closed/7").status == 405)
        }
    }

    @Test func accessLogWritesOneLinePerRequest() async throws {
        try await withServer { router in
            router.add(middleware: AccessLogMiddleware())
            router.add(.GET, "/items/{id}") { _, _ in .text("abc") }
        } _: { server in
            _ = try await server.client.request("GET", "/items/7", headers: [("X-Request-Id", "req-7")])
            _ = try await server.client.request("GET", "/missing")
            let lines = server.logs.entries("request")
            #expect(lines.count == 2)
            let first = try #require(lines.first).metadata
            #expect(first["request_id"] == "req-7")
            #expect(first["method"] == "GET")
            #expect(first["path"] == "/items/7")
            #expect(first["route"] == "/items/{id}")
            #expect(first["status"] == "200")
            #expect(first["bytes"] == "3")
            #expect(first["duration_ms"].flatMap(Double.init) != nil)
            #expect(lines.last?.metadata["status"] == "404")
            #expect(lines.last?.metadata["route"] == "-")
        }
    }
}
