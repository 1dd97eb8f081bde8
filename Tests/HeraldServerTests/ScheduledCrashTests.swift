import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldTestSupport
import HeraldThreads
import Testing

@testable import HeraldStore

/// Scheduled messages on PostgreSQL with two `herald serve` processes and one `herald sandbox`
/// (issue 16, point 10): a process killed with SIGKILL right after accepting a scheduled message
/// loses nothing (the other publishes it at its time), and two processes looking at once publish
/// each notification once. Real processes have no injected clock: the messages are due a few
/// seconds ahead.
@Suite("Scheduled messages: two servers on one PostgreSQL, one killed", .serialized)
struct ScheduledCrashTests {
    static let recipients = 20

    @Test(
        "a scheduled message survives kill -9 of the server that took it, and two servers publish each notification once",
        .enabled(if: postgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set (make test sets it)"))
    func survivesKillNine() async throws {
        let base = try #require(postgresURL)
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_sched_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: base)
        try admin.executeUncached("CREATE SCHEMA \(schema)")
        defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
        let url = "\(base)?options=-c%20search_path%3D\(schema)"

        let processes = try await SandboxProcesses.startSandbox()
        let flags =
            processes.flags(
                "APNS",
                [
                    ("KEY_FILE", "key-file"), ("KEY_ID", "key-id"), ("TEAM_ID", "team-id"), ("TOPIC", "topic"),
                    ("BASE_URL", "base-url"), ("CA_FILE", "ca-file"),
                ]) + ["--schedule-poll-interval", "100"]
        let secret = "scheduled-crash-test-secret-0123456789-abcdef"
        let first = try await HeraldProcess.start(database: url, secret: secret, extraArguments: flags)
        var servers = [first]
        do {
            servers.append(try await HeraldProcess.start(database: url, secret: secret, extraArguments: flags))
            let store = try await offCooperativePool { try PostgresStore.open(url: url, logger: .disabled) }
            let users = (0..<Self.recipients).map { "sched-user-\($0)" }
            for user in users {
                _ = try await store.upsertDevice(
                    userID: user,
                    DeviceRegistration(token: PushFixture.deviceToken(), provider: .apns, platform: .ios), at: Date())
            }
            let key =
                try await HeraldExecutable.run(["keys", "create", "--database", url])
                .split(separator: "\n").last.map(String.init) ?? ""

            // The first server takes the message and dies before its time.
            let killed = try await Self.publishScheduled(port: first.port, key: key, users: users, inSeconds: 3)
            #expect(await first.stop(signal: SIGKILL) == .signaled(SIGKILL))
            servers.removeFirst()
            for user in users {
                #expect(try await store.counts(userID: user) == Counts(unread: 0, unseen: 0), "nothing before its time")
            }
            try await Self.expectPublishedOnce(killed, users: users, store: store, processes: processes, sent: 20)

            // Both servers look at once (the restarted one and the survivor): each notification once.
            servers.append(try await HeraldProcess.start(database: url, secret: secret, extraArguments: flags))
            let raced = try await Self.publishScheduled(port: servers[0].port, key: key, users: users, inSeconds: 2)
            try await Self.expectPublishedOnce(raced, users: users, store: store, processes: processes, sent: 40)
            for user in users {
                #expect(try await store.counts(userID: user) == Counts(unread: 2, unseen: 2))
            }
        } catch {
            for server in servers { _ = await server.stop() }
            await processes.stop()
            throw error
        }
        for server in servers { #expect(await server.stop() == .exited(0)) }
        await processes.stop()
    }

    /// Publishes one notification with push to each of `users`, due `inSeconds` from now; answers
    /// the message id and the notification ids.
    static func publishScheduled(port: Int, key: String, users: [String], inSeconds: Double) async throws
        -> (message: String, notifications: [String])
    {
        let sendAt = Date().addingTimeInterval(inSeconds).formatted(.iso8601)
        let recipients = users.map { "\"\($0)\"" }.joined(separator: ",")
        let body =
            #"{"recipients":[\#(recipients)],"type":"order.shipped","title":"Later","body":"","#
            + #""push":{"send":true},"sendAt":"\#(sendAt)"}"#
        let response = try await LoopbackHTTPClient(port: port).request(
            "POST", "/v1/notifications",
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            body: Array(body.utf8))
        try #require(response.status == 202, "\(response.text)")
        let object = try #require(try response.json() as? [String: Any])
        let ids = (object["notifications"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return (try #require(object["messageId"] as? String), ids)
    }

    /// Waits until every notification of `published` is in its recipient's inbox with its push
    /// sent, then checks each was written once and pushed once (the sandbox has accepted `sent`
    /// pushes in all, each a delivery id).
    static func expectPublishedOnce(
        _ published: (message: String, notifications: [String]), users: [String], store: PostgresStore,
        processes: SandboxProcesses, sent: Int
    ) async throws {
        var rows: [DeliveryRecord] = []
        try await eventually("every scheduled notification published and pushed", within: .seconds(30)) {
            rows = []
            for id in published.notifications { rows += try await store.deliveries(notificationID: id) }
            return rows.count == users.count && rows.allSatisfy { $0.status == .sent }
        }
        let funnel = try #require(try await store.message(id: published.message)).funnel
        #expect(funnel.published == users.count && funnel.scheduled == 0)
        let accepted = try #require(
            try JSONSerialization.jsonObject(with: Data(try await processes.admin("/admin/apns/accepted").utf8))
                as? [String: Any])
        let ids = (accepted["accepted"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
        #expect(ids.count == sent, "each push accepted once")
        #expect(Set(rows.map(\.id)).isSubset(of: Set(ids)))
    }
}

private let postgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}
