import Foundation
import HeraldHTTP
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// A real `herald` server on a loopback port with its own SQLite file, and a client for it.
/// ``get(_:token:headers:)``, ``send(_:_:json:token:headers:)`` and ``delete(_:token:)`` go
/// through `transport`: the application's router in process, or HTTP to the port; `client`
/// always speaks HTTP (streams, raw connections).
struct TestServer {
    let app: HeraldApplication
    let client: LoopbackHTTPClient
    let caller: TestClient
    let directory: URL

    /// A fixed secret so tests can also sign tokens themselves.
    static let secret = "test-user-token-secret-0123456789abcdef"

    static func start(
        transport: TestTransport = .live, configure: (inout HeraldConfiguration) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger = Logger(label: "herald-test", level: .warning)
    ) async throws -> TestServer {
        let directory = try TemporaryDirectory("herald-test").url
        var configuration = HeraldConfiguration()
        configuration.port = 0
        configuration.databaseURL = "sqlite:" + directory.appendingPathComponent("herald.db").path
        configuration.userTokenSecret = secret
        // Most suites read delivery rows as the publish wrote them; the push suites turn it on.
        configuration.pushWorker.isEnabled = false
        configure(&configuration)
        let app = try await HeraldApplication(configuration: configuration, logger: logger, now: now)
        try app.start()
        let client = LoopbackHTTPClient(port: app.port)
        let caller =
            switch transport {
            case .live: TestClient(live: client)
            case .router: TestClient(router: app.router, logger: logger)
            }
        return TestServer(app: app, client: client, caller: caller, directory: directory)
    }

    func stop() async {
        await app.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func token(_ user: String) throws -> String { try app.userToken(for: user) }

    func apiKey() async throws -> String { try await app.createAPIKey(name: "test") }

    // MARK: Requests

    func get(_ path: String, token: String? = nil, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await caller.request("GET", path, headers: auth(token) + headers)
    }

    func delete(_ path: String, token: String? = nil) async throws -> LoopbackResponse {
        try await caller.request("DELETE", path, headers: auth(token))
    }

    func send(
        _ method: String, _ path: String, json: String? = nil, token: String? = nil, headers: [(String, String)] = []
    ) async throws -> LoopbackResponse {
        var all = auth(token) + headers
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try await caller.request(method, path, headers: all, body: Array((json ?? "").utf8))
    }

    func send<Body: Encodable>(
        _ method: String, _ path: String, body: Body, token: String? = nil, headers: [(String, String)] = []
    ) async throws -> LoopbackResponse {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let json = String(decoding: try encoder.encode(body), as: UTF8.self)
        return try await send(method, path, json: json, token: token, headers: headers)
    }

    /// Publishes through the publisher API and returns the created ids in recipient order.
    @discardableResult
    func publish(
        to recipients: [String], type: String = "order.shipped", title: String = "Your order shipped",
        body: String = "Arrives Friday", extra: String = "", key: String? = nil
    ) async throws -> [String] {
        var apiKey = key ?? ""
        if key == nil { apiKey = try await self.apiKey() }
        let recipientsJSON = recipients.map { "\"\($0)\"" }.joined(separator: ",")
        let json =
            #"{"recipients":[\#(recipientsJSON)],"type":"\#(type)","title":"\#(title)","body":"\#(body)"\#(extra)}"#
        let response = try await send("POST", "/v1/notifications", json: json, token: apiKey)
        try #require(response.status == 202, "publish answered \(response.status): \(response.text)")
        let decoded = try response.decode(PublishAnswer.self)
        return decoded.notifications.map(\.id)
    }

    private func auth(_ token: String?) -> [(String, String)] {
        token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }
}

struct PublishAnswer: Decodable {
    struct Item: Decodable {
        var id: String
        var recipient: String
    }
    var notifications: [Item]
}

/// Runs `body` against a fresh server; afterwards no request may have been answered with a 5xx
/// (the suite-wide guard: a 5xx is a bug).
func withServer(
    transport: TestTransport = .live,
    configure: (inout HeraldConfiguration) -> Void = { _ in },
    now: @escaping @Sendable () -> Date = Date.init,
    logger: Logger = Logger(label: "herald-test", level: .warning),
    _ body: (TestServer) async throws -> Void
) async throws {
    let server = try await TestServer.start(transport: transport, configure: configure, now: now, logger: logger)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    #expect(server.app.serverErrorCount == 0, "a request was answered with a 5xx")
    await server.stop()
}

/// Asserts the error shape `{"error":{"code":..., "message":...}}` with a status and code.
func expectError(
    _ response: LoopbackResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "status \(response.status): \(response.text)", sourceLocation: sourceLocation)
    let object = (try? response.json()) as? [String: Any]
    let error = object?["error"] as? [String: Any]
    #expect(error?["code"] as? String == code, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(
        (error?["message"] as? String)?.isEmpty == false, "no message: \(response.text)", sourceLocation: sourceLocation
    )
}

extension LoopbackResponse {
    /// The body as a JSON object.
    var object: [String: Any] { ((try? json()) as? [String: Any]) ?? [:] }
}
