import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldTestSupport
import HeraldThreads
import Synchronization
import Testing

@testable import HeraldStore

/// PostgreSQL going away under a running store and a running `herald serve`, on a cluster of
/// the test's own (scripts/pg-test-cluster.sh) that it stops and starts again on the same port.
@Suite(
    "PostgreSQL outage",
    .enabled(
        if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].map { !$0.isEmpty } == true,
        "HERALD_TEST_POSTGRES_URL is not set (make test sets it, and the PostgreSQL binaries with it)"))
struct PostgresOutageTests {
    @Test(
        "with the database stopped, store calls fail as unavailable within the timeouts; once it is back the same store works"
    )
    func storeSurvivesStoppedDatabase() async throws {
        let cluster = try await TestCluster.start()
        do {
            let settings = PostgresPoolSettings(size: 2)
            let url = cluster.durableURL
            let store = try await offCooperativePool { try PostgresStore.open(url: url, pool: settings) }
            let note = { (id: String) in
                NewNotification(
                    id: id, userID: "u1", type: "order.shipped", category: "orders", hidden: false, title: "T",
                    body: "B",
                    data: [:], deepLink: nil, detail: nil, push: nil, createdAt: Date())
            }
            _ = try await store.publish([note("n1")], catalog: .standard, idempotency: nil)

            try await cluster.pause()
            let started = ContinuousClock.now
            let read = try await #require(throws: StoreError.self) { try await store.counts(userID: "u1") }
            let write = try await #require(throws: StoreError.self) {
                try await store.publish([note("n2")], catalog: .standard, idempotency: nil)
            }
            #expect(read.code == .unavailable)
            #expect(write.code == .unavailable)
            #expect(ContinuousClock.now - started < settings.checkoutTimeout + .seconds(settings.connectTimeoutSeconds))

            try await cluster.resume()
            try await eventually("the store reaches the database again", within: .seconds(30)) {
                (try? await store.ping()) != nil
            }
            _ = try await store.publish([note("n3")], catalog: .standard, idempotency: nil)
            #expect(try await store.counts(userID: "u1") == Counts(unread: 2, unseen: 2))
            #expect(try await store.notification(userID: "u1", id: "n2") == nil)
        } catch {
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }

    @Test(
        "herald serve under load while PostgreSQL stops and starts again: 503 database_unavailable or success, no other 5xx, no hang, no crash, nothing acknowledged lost"
    )
    func serveSurvivesRestart() async throws {
        let cluster = try await TestCluster.start()
        let url = cluster.durableURL
        let secret = "postgres-outage-test-secret-0123456789"
        var server: HeraldProcess?
        do {
            let key = try #require(
                try await HeraldExecutable.run(["keys", "create", "--name", "outage", "--database", url])
                    .split(separator: "\n").last.map(String.init))
            let running = try await HeraldProcess.start(
                database: url, secret: secret, extraArguments: ["--database-pool-size", "3"])
            server = running
            let load = try Load(port: running.port, key: key, secret: secret, users: 4)
            let clients = load.start()

            try await eventually("publishes are acknowledged", within: .seconds(30)) { load.acknowledgedCount >= 20 }
            try await cluster.pause()
            let answer = try await load.waitForUnavailable()
            #expect(answer.header("Retry-After") == "2")
            #expect(answer.header("Content-Type") == "application/json")
            let body = try #require(try answer.json() as? [String: Any])
            let error = try #require(body["error"] as? [String: Any])
            #expect(error["code"] as? String == "database_unavailable")
            #expect((error["message"] as? String)?.isEmpty == false)
            // The clients keep going against the stopped database for a little while.
            let unavailableBefore = load.unavailableCount
            try await eventually("clients meet the stopped database", within: .seconds(30)) {
                load.unavailableCount >= unavailableBefore + 8
            }
            try await cluster.resume()
            let acknowledgedBefore = load.acknowledgedCount
            try await eventually("publishes succeed again without restarting herald", within: .seconds(30)) {
                load.acknowledgedCount >= acknowledgedBefore + 20
            }
            load.stop()
            for client in clients { try await client.value }

            #expect(running.exit == nil, "herald ended: \(running.stderr)")
            #expect(load.unexpected.isEmpty, "\(load.unexpected)")
            #expect(load.unavailableCount > 0)
            for (user, id) in load.acknowledged {
                let detail = try await load.client.request(
                    "GET", "/v1/me/notifications/\(id)", headers: [("Authorization", "Bearer \(load.tokens[user])")])
                #expect(detail.status == 200, "acknowledged \(id) of u\(user): \(detail.status) \(detail.text)")
            }
            #expect(await running.stop() == .exited(0))
        } catch {
            await server?.stop()
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }
}

/// A few clients publishing to their own user and reading its inbox in a loop, recording
/// every answer: 202 and 200 are progress, 503 `database_unavailable` is the outage, and
/// anything else (another status, a request past the client's deadline) is a failure.
private final class Load: Sendable {
    let client: LoopbackHTTPClient
    let tokens: [String]
    private let key: String
    private struct State {
        var acknowledged: [(user: Int, id: String)] = []
        var unavailable: [LoopbackResponse] = []
        var unexpected: [String] = []
        var stopped = false
    }
    private let state = Mutex(State())

    init(port: Int, key: String, secret: String, users: Int) throws {
        // A request that takes longer than this fails the test: no call may hang.
        client = LoopbackHTTPClient(port: port, timeout: .seconds(20))
        self.key = key
        tokens = try (0..<users).map { user in
            try TestTokens.sign(sub: "u\(user)", exp: Date().addingTimeInterval(3600), secret: secret)
        }
    }

    var acknowledgedCount: Int { state.withLock { $0.acknowledged.count } }
    var acknowledged: [(user: Int, id: String)] { state.withLock { $0.acknowledged } }
    var unavailableCount: Int { state.withLock { $0.unavailable.count } }
    var unexpected: [String] { state.withLock { $0.unexpected } }

    func stop() { state.withLock { $0.stopped = true } }

    /// One task per user, until ``stop()``.
    func start() -> [Task<Void, any Error>] {
        tokens.indices.map { user in
            Task {
                var round = 0
                while !state.withLock({ $0.stopped }) {
                    round += 1
                    try await publish(user: user, round: round)
                    try await readInbox(user: user)
                }
            }
        }
    }

    /// The first 503 a client met after this call, waiting for one up to 30 s.
    func waitForUnavailable() async throws -> LoopbackResponse {
        let seen = unavailableCount
        try await eventually("a client meets the stopped database", within: .seconds(30)) { unavailableCount > seen }
        return state.withLock { $0.unavailable[seen] }
    }

    private func publish(user: Int, round: Int) async throws {
        let body = #"{"recipients":["u\#(user)"],"type":"order.shipped","title":"Round \#(round)","body":"b"}"#
        let response = try await client.request(
            "POST", "/v1/notifications",
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")], body: Array(body.utf8))
        if response.status == 202 {
            struct Published: Decodable {
                struct Item: Decodable { var id: String }
                var notifications: [Item]
            }
            let ids = try response.decode(Published.self).notifications.map(\.id)
            state.withLock { state in state.acknowledged += ids.map { (user, $0) } }
        } else {
            record(response, "publish")
        }
    }

    private func readInbox(user: Int) async throws {
        let response = try await client.request(
            "GET", "/v1/me/notifications", headers: [("Authorization", "Bearer \(tokens[user])")])
        if response.status != 200 { record(response, "inbox") }
    }

    private func record(_ response: LoopbackResponse, _ what: String) {
        let isDatabaseUnavailable =
            response.status == 503 && response.text.contains(#""code":"database_unavailable""#)
            && response.header("Retry-After") != nil
        state.withLock { state in
            if isDatabaseUnavailable {
                state.unavailable.append(response)
            } else {
                state.unexpected.append("\(what): \(response.status) \(response.text)")
            }
        }
    }
}

/// A PostgreSQL cluster in a temporary directory, made by scripts/pg-test-cluster.sh, that a
/// test can stop as if it crashed and start again on the same port.
private struct TestCluster {
    let directory: String
    let url: String

    /// `url` with commits written to the WAL before they are acknowledged (the test cluster
    /// turns that off for speed), so a crash loses nothing that was answered.
    var durableURL: String { url + "?options=-c%20synchronous_commit%3Don" }

    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/pg-test-cluster.sh")
        .path

    static func start() async throws -> TestCluster {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-pg-outage-\(UUID().uuidString)").path
        let url = try await run("start", directory).trimmingCharacters(in: .whitespacesAndNewlines)
        return TestCluster(directory: directory, url: url)
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`), as a crash would.
    func pause() async throws { _ = try await Self.run("pause", directory) }

    /// Starts the stopped server again on its port.
    func resume() async throws { _ = try await Self.run("resume", directory) }

    /// Stops the server and removes the directory.
    func remove() async { _ = try? await Self.run("stop", directory) }

    private static func run(_ command: String, _ directory: String) async throws -> String {
        let result = try await ChildProcess.run("/bin/bash", [script, command, directory])
        guard result.exit == .exited(0) else {
            throw HeraldProcessError.commandFailed(
                "pg-test-cluster.sh \(command) ended \(result.exit): \(result.stderr)")
        }
        return result.stdout
    }
}
