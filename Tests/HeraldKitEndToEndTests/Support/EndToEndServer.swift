import Foundation
import HeraldHTTPTestSupport
import HeraldKit
import HeraldModel
import HeraldServerModel
import HeraldTestSupport
import Synchronization
import Testing

/// A real `herald serve` for end-to-end tests: its own SQLite file in a temporary directory, a
/// fixed user-token secret, one publisher API key, and helpers to mint user tokens (with
/// `herald token`), build live clients, publish and call publisher routes.
///
/// Start one per test with ``withEndToEndServer(_:)``, which always stops the process and
/// removes the directory. ``crash()`` and ``restart()`` kill the process and start a new one
/// on the same port and database.
final class EndToEndServer: Sendable {
    /// The user-token secret the server runs with (at least 32 bytes).
    static let secret = "herald-e2e-user-token-secret-0123456789"

    let directory: URL
    /// The publisher API key (`herald keys create`).
    let apiKey: String
    private let process: Mutex<HeraldProcess>

    /// `sqlite:<directory>/herald.db`.
    var database: String { Self.database(in: directory) }
    var port: Int { process.withLock { $0.port } }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Everything the current process logged.
    var log: String { process.withLock { $0.stderr } }

    private init(directory: URL, apiKey: String, process: HeraldProcess) {
        self.directory = directory
        self.apiKey = apiKey
        self.process = Mutex(process)
    }

    private static func database(in directory: URL) -> String {
        "sqlite:" + directory.appendingPathComponent("herald.db").path
    }

    /// Starts a server on a free port with a fresh database and creates its API key.
    static func start() async throws -> EndToEndServer {
        let directory = try TemporaryDirectory("herald-e2e").url
        let process: HeraldProcess
        do {
            process = try await HeraldProcess.start(database: database(in: directory), secret: secret)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        do {
            let output = try await HeraldExecutable.run([
                "keys", "create", "--name", "e2e", "--database", database(in: directory),
            ])
            let key = try lastLine(output)
            return EndToEndServer(directory: directory, apiKey: key, process: process)
        } catch {
            await process.stop(signal: SIGKILL)
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops the process and removes the database.
    func stop() async {
        let current = process.withLock { $0 }
        await current.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Process control

    /// Kills the process as a crash would (SIGKILL): open streams drop at once.
    func crash() async {
        let current = process.withLock { $0 }
        await current.stop(signal: SIGKILL)
    }

    /// Starts a new process on the same port and database (after ``crash()``).
    func restart() async throws {
        let restarted = try await HeraldProcess.start(database: database, secret: Self.secret, port: port)
        process.withLock { $0 = restarted }
    }

    // MARK: Users

    /// A user token for `user`, minted by `herald token` against this database and secret.
    func token(for user: String, ttl: Int = 3600) async throws -> String {
        let output = try await HeraldExecutable.run([
            "token", "--user", user, "--ttl", String(ttl), "--database", database, "--user-token-secret", Self.secret,
        ])
        return try Self.lastLine(output)
    }

    /// A live client of this server with a fixed token (`nil`: guest). Its reconnect waits are
    /// real but a hundredth of the policy's, so a stream test never waits seconds.
    func client(
        token: String?, requestTimeout: Duration = .seconds(10), streamIdleTimeout: Duration = .seconds(45),
        reconnect: ReconnectPolicy = .fast
    ) -> HeraldClient {
        HeraldClient(
            configuration: .init(
                baseURL: baseURL, requestTimeout: requestTimeout, streamIdleTimeout: streamIdleTimeout,
                reconnect: reconnect, token: { token }))
    }

    /// A live client signed in as `user`.
    func client(user: String, reconnect: ReconnectPolicy = .fast) async throws -> HeraldClient {
        client(token: try await token(for: user), reconnect: reconnect)
    }

    // MARK: Publisher calls

    /// `POST /v1/notifications` with the API key; answers the created ids in recipient order.
    @discardableResult
    func publish(_ request: PublishRequest) async throws -> [String] {
        let response = try await publisherRequest("POST", "/v1/notifications", body: request)
        guard response.status == 202 else {
            throw EndToEndError.commandFailed("publish answered \(response.status): \(response.text)")
        }
        return try response.decode(PublishResponse.self).notifications.map(\.id)
    }

    /// Publishes one notification to `user`; answers its id.
    @discardableResult
    func publish(
        to user: String, type: String = "order.shipped", title: String = "Your order shipped",
        body: String = "Arrives Friday", data: [String: String]? = nil, deepLink: String? = nil,
        detail: NotificationDetail? = nil, push: PushOptions? = nil
    ) async throws -> String {
        let ids = try await publish(
            PublishRequest(
                recipients: [user], type: type, title: title, body: body, data: data, deepLink: deepLink,
                detail: detail, push: push))
        return ids[0]
    }

    /// A publisher call with the API key (JSON body when given).
    func publisherRequest(
        _ method: String, _ path: String, body: (any Encodable & Sendable)? = nil
    ) async throws -> LoopbackResponse {
        var headers = [("Authorization", "Bearer \(apiKey)")]
        var bytes: [UInt8] = []
        if let body {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            bytes = Array(try encoder.encode(body))
            headers.append(("Content-Type", "application/json"))
        }
        return try await LoopbackHTTPClient(port: port).request(method, path, headers: headers, body: bytes)
    }

    private static func lastLine(_ output: String) throws -> String {
        guard let line = output.split(separator: "\n").last.map(String.init), !line.isEmpty else {
            throw EndToEndError.commandFailed("no output")
        }
        return line
    }
}

extension ReconnectPolicy {
    /// The default policy at a hundredth of the time: 30 ms after a stream ends, then backoff
    /// from 10 ms up to 600 ms.
    static var fast: ReconnectPolicy {
        ReconnectPolicy(sleep: { duration in try await Task.sleep(for: duration / 100) })
    }
}

/// Runs `body` against a fresh server and stops it afterwards, also when `body` throws. `body`
/// runs in the caller's isolation (a `@MainActor` test drives `HeraldAPI.live` directly).
func withEndToEndServer(
    isolation: isolated (any Actor)? = #isolation, _ body: (EndToEndServer) async throws -> Void
) async throws {
    let server = try await EndToEndServer.start()
    do {
        try await body(server)
    } catch {
        Issue.record("server log:\n\(server.log.suffix(4000))")
        await server.stop()
        throw error
    }
    await server.stop()
}
