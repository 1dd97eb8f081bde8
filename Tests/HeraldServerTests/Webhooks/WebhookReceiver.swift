import Foundation
import HeraldCrypto
import HeraldSandbox
import HeraldTestSupport
import Synchronization
import Testing

@testable import HeraldServer
@testable import HeraldStore

/// A webhook receiver on loopback: the sandbox's HTTP/1.1 server (cleartext, and TLS with the test
/// certificate when given one), recording every request and answering as scripted: the next
/// scripted answer for each request, 200 once the script is used up.
final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    struct Received: Sendable {
        var path: String
        /// The Host header.
        var authority: String
        var headers: [HTTP2Header]
        var body: [UInt8]

        func header(_ name: String) -> String? { headers.first(named: name) }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:]
        }
        var eventID: String? { json["id"] as? String }
        var type: String? { json["type"] as? String }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    /// How the receiver answers one request.
    enum Answer: Sendable {
        case status(Int, headers: [HTTP2Header] = [])
        /// The connection is reset without an answer.
        case drop
        /// `status`, after `delay`.
        case slow(Duration, Int)
    }

    private struct State {
        var received: [Received] = []
        var script: [Answer] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    private let state = Mutex(State())
    private let server: HTTP2Server

    var port: Int { server.port }

    private init(server: HTTP2Server) {
        self.server = server
    }

    /// Listens on a free loopback port; with `tls`, https too (its certificate names `localhost`
    /// and `127.0.0.1`).
    static func start(tls: TLSIdentity? = nil) throws -> WebhookReceiver {
        let box = Mutex<WebhookReceiver?>(nil)
        let server = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(tls: tls)) { request in
            guard let receiver = box.withLock({ $0 }) else { return HTTP2Response(status: 503) }
            return await receiver.answer(request)
        }
        let receiver = WebhookReceiver(server: server)
        box.withLock { $0 = receiver }
        return receiver
    }

    func stop() async { await server.stop() }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String = "/hooks") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The next answers, in order; 200 after them.
    func script(_ answers: [Answer]) {
        state.withLock { $0.script = answers }
    }

    var received: [Received] { state.withLock { $0.received } }

    /// The most requests that were being answered at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// The requests once `count` have arrived (or what arrived within `limit`).
    func waitFor(_ count: Int, within limit: Duration = .seconds(20)) async throws -> [Received] {
        _ = try await becomesTrue(within: limit) { received.count >= count }
        return received
    }

    private func answer(_ request: HTTP2Request) async -> HTTP2Response {
        let answer = state.withLock { state -> Answer in
            state.received.append(
                Received(path: request.path, authority: request.authority, headers: request.headers, body: request.body)
            )
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return state.script.isEmpty ? .status(200) : state.script.removeFirst()
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        switch answer {
        case .status(let status, let headers):
            return HTTP2Response(status: status, headers: headers, body: Array("ok".utf8))
        case .drop: return .dropConnection
        case .slow(let delay, let status):
            try? await Task.sleep(for: delay)
            return HTTP2Response(status: status)
        }
    }
}

/// What the webhook tests share: a subscription made through the API, signatures checked as a
/// receiver would, and the databases they run on.
enum WebhookTesting {
    /// Settings that reach the loopback receiver and retry at once.
    static func configure(_ configuration: inout HeraldConfiguration, retryBase: TimeInterval = 0.05) {
        configuration.webhooks.allowPrivateAddresses = true
        configuration.webhooks.retryBase = retryBase
        configuration.webhooks.retryCap = retryBase * 4
        configuration.webhooks.timeout = 5
        configuration.webhooks.wakeInterval = .milliseconds(50)
    }

    /// Subscribes `url` to `events` through `POST /v1/webhooks`; answers the id and secret.
    static func subscribe(_ server: TestServer, key: String, url: String, events: [String]) async throws
        -> (id: String, secret: String)
    {
        let names = events.map { "\"\($0)\"" }.joined(separator: ",")
        let response = try await server.send(
            "POST", "/v1/webhooks", json: #"{"url":"\#(url)","events":[\#(names)]}"#, token: key)
        try #require(response.status == 201, "\(response.status): \(response.text)")
        let object = response.object
        return (try #require(object["id"] as? String), try #require(object["secret"] as? String))
    }

    /// Whether `request`'s `Herald-Signature` is the HMAC-SHA256 of `"<t>.<body>"` under `secret`,
    /// checked as a receiver does (the timestamp within five minutes of now).
    static func verifies(_ request: WebhookReceiver.Received, secret: String) -> Bool {
        guard let header = request.header("herald-signature") else { return false }
        var timestamp: String?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return false }
            if pair[0] == "t" { timestamp = pair[1] }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, let seconds = Double(timestamp),
            abs(Date().timeIntervalSince1970 - seconds) < 300
        else { return false }
        let expected = HMAC.sha256(key: Array(secret.utf8), message: Array((timestamp + ".").utf8) + request.body)
        return signatures.contains { Hex.decode($0).map { ConstantTime.equals($0, expected) } ?? false }
    }

    /// The subscription's deliveries as the API lists them, newest first.
    static func deliveries(_ server: TestServer, key: String, webhook: String) async throws -> [[String: Any]] {
        let response = try await server.get("/v1/webhooks/\(webhook)/deliveries?limit=100", token: key)
        try #require(response.status == 200, "\(response.text)")
        return response.object["items"] as? [[String: Any]] ?? []
    }
}
