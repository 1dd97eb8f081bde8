import Foundation
import Synchronization
import Testing

@testable import HeraldHTTP

/// The socket-free client and the router, in process.
@Suite struct InProcessClientTests {
    static func router() -> Router {
        var router = Router()
        router.add(.GET, "/v1/me/notifications/{id}") { request, context in
            try .json(["id": context.parameters["id"]!, "route": context.route!, "q": request.query["q"] ?? ""])
        }
        router.add(.POST, "/v1/me/notifications/read-all") { _, _ in .noContent() }
        router.add(.GET, "/fail") { _, _ in throw HTTPError.unauthenticated() }
        router.add(.GET, "/crash") { _, _ in throw CocoaError(.fileNoSuchFile) }
        router.add(.GET, "/events") { _, _ in
            let stream = ResponseStream()
            stream.send(ServerSentEvent(id: "1", data: "hello"))
            return .eventStream(stream)
        }
        return router
    }

    @Test func decodesTargetsLikeTheTransport() async throws {
        let client = InProcessClient(responder: Self.router())
        let response = try await client.execute(.GET, "/v1/me/notifications/a%20b?q=x+y%21&q=ignored")
        #expect(response.status == 200)
        let body = try JSONDecoder().decode([String: String].self, from: Data(response.body))
        #expect(body == ["id": "a b", "route": "/v1/me/notifications/{id}", "q": "x y!"])
        #expect(response.headers["x-request-id"]?.count == 32)
    }

    @Test func mapsErrorsLikeTheTransport() async throws {
        let logs = LogRecorder()
        let client = InProcessClient(responder: Self.router(), logger: Logger(label: "t", level: .trace, handler: logs))
        let unauthenticated = try await client.execute(.GET, "/fail", headers: ["X-Request-Id": "r1"])
        #expect(unauthenticated.status == 401)
        #expect(
            String(decoding: unauthenticated.body, as: UTF8.self)
                == #"{"error":{"code":"unauthenticated","message":"Authentication is required."}}"#)
        #expect(unauthenticated.headers["X-Request-Id"] == "r1")

        let crash = try await client.execute(.GET, "/crash")
        #expect(crash.status == 500)
        #expect(String(decoding: crash.body, as: UTF8.self).contains(#""code":"internal_error""#))
        #expect(logs.messages.contains { $0.level == .error && $0.message == "unhandled error" })

        let wrongMethod = try await client.execute(.DELETE, "/v1/me/notifications/read-all")
        #expect(wrongMethod.status == 405)
        // GET would be served by the {id} route, so it is allowed too.
        #expect(wrongMethod.headers["Allow"] == "POST, GET, HEAD")
    }

    @Test func headHasNoBodyAndStreamsAreCutOff() async throws {
        let client = InProcessClient(responder: Self.router())
        let head = try await client.execute(.HEAD, "/v1/me/notifications/x")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        let events = try await client.execute(.GET, "/events")
        #expect(String(decoding: events.body, as: UTF8.self) == "id: 1\ndata: hello\n\n")
    }

    @Test func literalSegmentsBeatParameters() async throws {
        let router = Self.router()
        guard
            case .matched(let endpoint, let parameters) = router.resolve(
                .POST, rawPath: "/v1/me/notifications/read-all")
        else {
            Issue.record("no match")
            return
        }
        #expect(endpoint.pattern == "/v1/me/notifications/read-all")
        #expect(parameters.isEmpty)
        guard
            case .matched(let getEndpoint, let getParameters) = router.resolve(
                .GET, rawPath: "/v1/me/notifications/read-all")
        else {
            Issue.record("GET should fall back to the parameter route")
            return
        }
        #expect(getEndpoint.pattern == "/v1/me/notifications/{id}")
        #expect(getParameters == ["id": "read-all"])
        #expect(router.routes.map(\.pattern).count == 5)
    }

    @Test func aRequestMadeFromADecodedPathRoutesToIt() throws {
        // Its raw path encodes each % again, so routing decodes the segment back to itself.
        let request = Request(method: .GET, path: "/v1/me/notifications/100%2F%")
        #expect(request.rawPath == "/v1/me/notifications/100%252F%25")
        guard case .matched(_, let parameters) = Self.router().resolve(.GET, rawPath: request.rawPath) else {
            Issue.record("no match")
            return
        }
        #expect(parameters == ["id": "100%2F%"])
    }
}

/// Records log messages (this suite avoids depending on the test-support module).
final class LogRecorder: LogHandler {
    struct Message: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }
    private let storage = Synchronization.Mutex<[Message]>([])
    func log(level: Logger.Level, label: String, message: String, metadata: [String: String]) {
        storage.withLock { $0.append(Message(level: level, message: message, metadata: metadata)) }
    }
    var messages: [Message] { storage.withLock { $0 } }
}
