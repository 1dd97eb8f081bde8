import Foundation
import HeraldHTTPTestSupport
import Testing

/// `herald sandbox` as a developer runs it: its env file points a real `herald serve` at it and
/// the push arrives; it stops cleanly and keeps its key.
@Suite("herald sandbox", .serialized)
struct SandboxCommandTests {
    @Test("herald.env points herald serve at the sandbox: a published push shows up as accepted")
    func serveSendsToSandbox() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandbox = try await Self.startSandbox(directory)
        let settings = try Self.readEnvironmentFile(directory + "/herald.env")
        #expect(settings["HERALD_APNS_BASE_URL"] == "https://127.0.0.1:\(sandbox.port)")
        #expect(settings["HERALD_APNS_TOPIC"] == "dev.herald.sandbox")
        for key in ["HERALD_APNS_KEY_FILE", "HERALD_APNS_CA_FILE"] {
            let path = try #require(settings[key])
            #expect(path.hasPrefix("/") && FileManager.default.fileExists(atPath: path), "\(key)=\(path)")
        }
        let keyID = try #require(settings["HERALD_APNS_KEY_ID"])
        #expect(settings["HERALD_APNS_KEY_FILE"]?.hasSuffix("/AuthKey_\(keyID).p8") == true)

        let database = "sqlite:" + directory + "/h.db"
        let secret = "sandbox-command-test-secret-0123456789"
        let flags = [
            ("KEY_FILE", "key-file"), ("KEY_ID", "key-id"), ("TEAM_ID", "team-id"), ("TOPIC", "topic"),
            ("BASE_URL", "base-url"), ("CA_FILE", "ca-file"),
        ]
        .flatMap { ["--apns-\($0.1)", settings["HERALD_APNS_\($0.0)"] ?? ""] }
        let server = try await HeraldProcess.start(database: database, secret: secret, extraArguments: flags)
        let key =
            try await HeraldExecutable.run(["keys", "create", "--database", database])
            .split(separator: "\n").last.map(String.init) ?? ""
        let token =
            try await HeraldExecutable.run(
                ["token", "--user", "dev-user", "--database", database, "--user-token-secret", secret]
            ).split(separator: "\n").last.map(String.init) ?? ""
        let client = LoopbackHTTPClient(port: server.port)
        let deviceToken = String(repeating: "ab12", count: 16)
        let registered = try await client.request(
            "POST", "/v1/me/devices", headers: Self.json(bearer: token),
            body: Array(#"{"token":"\#(deviceToken)","provider":"apns","platform":"ios"}"#.utf8))
        #expect((200..<300).contains(registered.status))
        let published = try await client.request(
            "POST", "/v1/notifications", headers: Self.json(bearer: key),
            body: Array(
                #"{"recipients":["dev-user"],"type":"order.shipped","title":"Shipped","body":"Friday","push":{"send":true}}"#
                    .utf8))
        #expect(published.status == 202)

        var accepted = ""
        for _ in 0..<100 where !accepted.contains(deviceToken) {
            try await Task.sleep(for: .milliseconds(100))
            accepted = try await Self.admin(port: sandbox.port, caFile: settings["HERALD_APNS_CA_FILE"] ?? "")
        }
        #expect(accepted.contains(deviceToken) && accepted.contains("Shipped"), "\(accepted)")
        #expect(await server.stop() == .exited(0))
        #expect(await sandbox.stop() == .exited(0))
    }

    @Test("herald.env's FCM settings: a real herald serve exchanges a token and its FCM push is accepted")
    func serveSendsToFCMSandbox() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandbox = try await Self.startSandbox(directory)
        let settings = try Self.readEnvironmentFile(directory + "/herald.env")
        #expect(settings["HERALD_FCM_BASE_URL"] == "https://127.0.0.1:\(sandbox.port)")
        let accountFile = try #require(settings["HERALD_FCM_SERVICE_ACCOUNT"])
        let account = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: accountFile)))
        #expect((account as? [String: String])?["token_uri"] == "https://127.0.0.1:\(sandbox.port)/token")

        let database = "sqlite:" + directory + "/h.db"
        let secret = "sandbox-command-test-secret-0123456789"
        let flags = [("SERVICE_ACCOUNT", "service-account"), ("BASE_URL", "base-url"), ("CA_FILE", "ca-file")]
            .flatMap { ["--fcm-\($0.1)", settings["HERALD_FCM_\($0.0)"] ?? ""] }
        let server = try await HeraldProcess.start(database: database, secret: secret, extraArguments: flags)
        let key =
            try await HeraldExecutable.run(["keys", "create", "--database", database])
            .split(separator: "\n").last.map(String.init) ?? ""
        let token =
            try await HeraldExecutable.run(
                ["token", "--user", "dev-user", "--database", database, "--user-token-secret", secret]
            ).split(separator: "\n").last.map(String.init) ?? ""
        let client = LoopbackHTTPClient(port: server.port)
        let registrationToken = "fcm-sandbox-command:APA91bH-0123456789"
        let registered = try await client.request(
            "POST", "/v1/me/devices", headers: Self.json(bearer: token),
            body: Array(#"{"token":"\#(registrationToken)","provider":"fcm","platform":"android"}"#.utf8))
        #expect((200..<300).contains(registered.status))
        let published = try await client.request(
            "POST", "/v1/notifications", headers: Self.json(bearer: key),
            body: Array(
                #"{"recipients":["dev-user"],"type":"order.shipped","title":"Shipped","body":"Friday","push":{"send":true}}"#
                    .utf8))
        #expect(published.status == 202)

        var accepted = ""
        for _ in 0..<100 where !accepted.contains(registrationToken) {
            try await Task.sleep(for: .milliseconds(100))
            accepted = try await Self.admin(
                port: sandbox.port, caFile: settings["HERALD_FCM_CA_FILE"] ?? "", path: "/admin/fcm/accepted")
        }
        #expect(accepted.contains(registrationToken) && accepted.contains("Shipped"), "\(accepted)")
        #expect(accepted.contains(#""tokenExchanges":1"#), "\(accepted)")
        #expect(await server.stop() == .exited(0))
        #expect(await sandbox.stop() == .exited(0))
    }

    @Test("SIGTERM stops the sandbox with exit 0; a second start reuses the key id")
    func stopsCleanlyAndKeepsItsKey() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await Self.startSandbox(directory)
        let firstKeyID = try Self.readEnvironmentFile(directory + "/herald.env")["HERALD_APNS_KEY_ID"]
        #expect(await first.stop(signal: SIGTERM) == .exited(0))
        var log = first.stderr
        for _ in 0..<100 where !log.contains("herald sandbox stopped") {
            try await Task.sleep(for: .milliseconds(10))
            log = first.stderr
        }
        #expect(log.contains("herald sandbox stopped"), "\(log)")

        let second = try await Self.startSandbox(directory)
        #expect(try Self.readEnvironmentFile(directory + "/herald.env")["HERALD_APNS_KEY_ID"] == firstKeyID)
        #expect(firstKeyID != nil)
        #expect(await second.stop(signal: SIGINT) == .exited(0))
    }

    // MARK: Support

    private static func startSandbox(_ directory: String) async throws -> HeraldProcess {
        try await HeraldProcess.launch(
            ["sandbox", "--port", "0", "--state-dir", directory], startupLine: "herald sandbox listening")
    }

    private static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-sandbox-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The `KEY='value'` lines of a herald.env, comments skipped.
    private static func readEnvironmentFile(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...]).trimmingCharacters(
                in: CharacterSet(charactersIn: "'"))
        }
        return settings
    }

    private static func json(bearer: String) -> [(String, String)] {
        [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")]
    }

    /// `GET path` (the APNs accepted list unless told otherwise) over TLS, trusting the
    /// sandbox's certificate.
    private static func admin(port: Int, caFile: String, path: String = "/admin/apns/accepted") async throws -> String {
        let result = try await ChildProcess.run(
            "/usr/bin/curl", ["-sS", "--cacert", caFile, "https://127.0.0.1:\(port)\(path)"])
        return result.stdout
    }
}
