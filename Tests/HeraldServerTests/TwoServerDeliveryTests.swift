import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

@testable import HeraldStore

/// Two `herald serve` processes on one PostgreSQL database, both running the delivery worker
/// against one `herald sandbox`: the outbox is shared, and no row is sent twice.
@Suite("Two herald serve processes on one PostgreSQL outbox", .serialized)
struct TwoServerDeliveryTests {
    static let deliveries = 10_000

    @Test(
        "10,000 deliveries claimed by two servers at once: each reaches the sandbox exactly once, and both servers sent",
        .enabled(if: postgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set (make test sets it)"))
    func twoWorkersSendEachRowOnce() async throws {
        let base = try #require(postgresURL)
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_two_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: base)
        try admin.executeUncached("CREATE SCHEMA \(schema)")
        defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
        let url = "\(base)?options=-c%20search_path%3D\(schema)"

        let processes = try await SandboxProcesses.startSandbox()
        _ = try await HeraldExecutable.run(["bench", "push-seed", "--devices", "\(Self.deliveries)", "--database", url])
        // Small claims, so that the two workers take turns through the whole outbox.
        let flags =
            processes.flags(
                "APNS",
                [
                    ("KEY_FILE", "key-file"), ("KEY_ID", "key-id"), ("TEAM_ID", "team-id"), ("TOPIC", "topic"),
                    ("BASE_URL", "base-url"), ("CA_FILE", "ca-file"),
                ]) + ["--push-batch-size", "50", "--push-concurrency", "16"]
        let secret = "two-servers-test-secret-0123456789-abcdef"
        async let first = HeraldProcess.start(database: url, secret: secret, extraArguments: flags)
        async let second = HeraldProcess.start(database: url, secret: secret, extraArguments: flags)
        let servers = try await [first, second]

        var sentByServer: [Int] = []
        do {
            try await eventually("both servers together recorded every delivery sent", within: .seconds(120)) {
                sentByServer = []
                for server in servers { sentByServer.append(try await Self.sentCount(port: server.port)) }
                return sentByServer.reduce(0, +) >= Self.deliveries
            }
        } catch {
            // No process outlives a failed test.
            for server in servers { _ = await server.stop() }
            await processes.stop()
            throw error
        }
        for server in servers { #expect(await server.stop() == .exited(0)) }

        let statuses = try admin.query(
            "SELECT status, COUNT(*) AS total FROM \(unsafeSQL: schema).deliveries GROUP BY status"
        ) { row throws(StoreError) in "\(try row.text("status"))=\(try row.int("total"))" }
        #expect(statuses == ["sent=\(Self.deliveries)"])
        let ids = Set(
            try admin.query("SELECT id FROM \(unsafeSQL: schema).deliveries") { row throws(StoreError) in
                try row.text("id")
            })
        let acceptedList = try #require(
            try JSONSerialization.jsonObject(with: Data(try await processes.admin("/admin/apns/accepted").utf8))
                as? [String: Any])
        let accepted = (acceptedList["accepted"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
        #expect(accepted.count == Self.deliveries, "every delivery accepted once, none twice")
        #expect(Set(accepted) == ids, "the accepted apns-ids are the delivery ids")
        #expect(sentByServer.allSatisfy { $0 > 0 }, "both servers sent: \(sentByServer)")
        #expect(sentByServer.reduce(0, +) == Self.deliveries)
        await processes.stop()
    }

    /// The deliveries a server has recorded sent, from its `/metrics`.
    private static func sentCount(port: Int) async throws -> Int {
        let metrics = try await LoopbackHTTPClient(port: port).request("GET", "/metrics").text
        let line = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"herald_push_deliveries_total{provider="apns",outcome="sent"}"#)
        }
        return line.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } } ?? 0
    }
}

private let postgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}
