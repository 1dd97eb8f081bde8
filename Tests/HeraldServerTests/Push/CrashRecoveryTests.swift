import Foundation
import HeraldHTTPTestSupport
import HeraldModel
import HeraldSandbox
import HeraldStore
import HeraldTestSupport
import Synchronization
import Testing

/// A real `herald serve` killed with SIGKILL while it sends: the restarted process on the same
/// database sends every claimed-but-unfinished delivery again, with the same `apns-id`.
@Suite("Push crash recovery", .serialized)
struct CrashRecoveryTests {
    static let recipients = 300

    @Test("SIGKILL mid-send loses no delivery: after a restart every row is sent, each apns-id its delivery id")
    func killNineLosesNothing() async throws {
        let scratch = try TemporaryDirectory("herald-crash")
        defer { scratch.remove() }
        let directory = scratch.path
        let credentials = try TestSandboxCredentials.fresh(prefix: "herald-crash-sandbox")
        defer { try? FileManager.default.removeItem(atPath: credentials.directory) }
        // The restarted process signs a new provider token; APNs refuses one within 20 minutes
        // of the last, so the sandbox's clock moves on between the two processes.
        let clock = OffsetClock()
        let sandbox = try APNsSandbox(credentials: credentials, clock: { clock.now })
        let gateway = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(tls: credentials.tls), answering: sandbox.answer)
        let database = directory + "/herald.db"
        let secret = "crash-recovery-test-secret-0123456789"
        let flags = [
            "--apns-key-file", credentials.keyPath, "--apns-key-id", credentials.keyID,
            "--apns-team-id", credentials.teamID, "--apns-topic", credentials.bundleID,
            "--apns-base-url", "https://127.0.0.1:\(gateway.port)", "--apns-ca-file", credentials.tls.certificatePath,
            "--push-lease", "1", "--push-concurrency", "32",
        ]
        let first = try await HeraldProcess.start(database: "sqlite:" + database, secret: secret, extraArguments: flags)

        // Every device answers slowly, so the kill finds sends in flight.
        let store = try SQLiteStore(path: database)
        for index in 0..<Self.recipients {
            let token = PushFixture.deviceToken()
            _ = try await store.upsertDevice(
                userID: "crash-user-\(index)", DeviceRegistration(token: token, provider: .apns, platform: .ios),
                at: Date())
            sandbox.setFault(.delay(.milliseconds(150)), for: token)
        }
        let key =
            try await HeraldExecutable.run(["keys", "create", "--database", "sqlite:" + database])
            .split(separator: "\n").last.map(String.init) ?? ""
        let notificationIDs = try await Self.publish(port: first.port, key: key)
        try #require(notificationIDs.count == Self.recipients)

        try await eventually("the first process sends some", within: .seconds(20)) { sandbox.accepted.count >= 20 }
        #expect(await first.stop(signal: SIGKILL) == .signaled(SIGKILL))
        let acceptedBeforeKill = Set(sandbox.accepted.map(\.apnsID))
        #expect(acceptedBeforeKill.count < Self.recipients, "the kill came after every send")

        sandbox.clearFaults()
        clock.advance(by: 21 * 60)
        let second = try await HeraldProcess.start(
            database: "sqlite:" + database, secret: secret, extraArguments: flags)
        var rows: [DeliveryRecord] = []
        try await eventually("every delivery is recorded sent", within: .seconds(60)) {
            rows = []
            for id in notificationIDs { rows += try await store.deliveries(notificationID: id) }
            return rows.count == Self.recipients && rows.allSatisfy { $0.status == .sent }
        }
        #expect(await second.stop() == .exited(0))
        await gateway.stop()

        let deliveryIDs = Set(rows.map(\.id))
        let accepted = sandbox.accepted.map(\.apnsID)
        #expect(deliveryIDs.count == Self.recipients)
        // At least once, and never under another id: the sandbox accepted exactly the rows' ids.
        #expect(Set(accepted) == deliveryIDs)
        #expect(accepted.count >= Self.recipients)
        // Rows the first process had claimed and not finished were claimed again after their lease.
        #expect(rows.contains { $0.attempts >= 2 }, "no row was claimed twice")
    }

    /// Publishes one notification with push to every recipient; answers their ids.
    private static func publish(port: Int, key: String) async throws -> [String] {
        let recipients = (0..<recipients).map { "\"crash-user-\($0)\"" }.joined(separator: ",")
        let body =
            #"{"recipients":[\#(recipients)],"type":"order.shipped","title":"Shipped","body":"Friday","#
            + #""push":{"send":true}}"#
        let response = try await LoopbackHTTPClient(port: port).request(
            "POST", "/v1/notifications",
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            body: Array(body.utf8))
        try #require(response.status == 202, "\(response.text)")
        struct Published: Decodable {
            struct Item: Decodable { var id: String }
            var notifications: [Item]
        }
        return try JSONDecoder().decode(Published.self, from: Data(response.body)).notifications.map(\.id)
    }
}
