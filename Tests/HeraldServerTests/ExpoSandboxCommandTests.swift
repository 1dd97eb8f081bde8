import Foundation
import HeraldHTTPTestSupport
import Testing

/// `herald sandbox` and `herald serve` as processes, joined by herald.env's `HERALD_EXPO_*`
/// settings: an Expo push published through the API shows up in the sandbox, over TLS.
@Suite("herald sandbox: Expo", .serialized)
struct ExpoSandboxCommandTests {
    @Test("herald.env has the HERALD_EXPO_* settings; herald serve with them delivers an Expo push to the sandbox")
    func serveSendsExpoToSandbox() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("herald-expo-sandbox-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandbox = try await HeraldProcess.launch(
            ["sandbox", "--port", "0", "--state-dir", directory], startupLine: "herald sandbox listening")
        let settings = try Self.readEnvironmentFile(directory + "/herald.env")
        #expect(settings["HERALD_EXPO_BASE_URL"] == "https://127.0.0.1:\(sandbox.port)")
        let accessToken = try #require(settings["HERALD_EXPO_ACCESS_TOKEN"])
        let caFile = try #require(settings["HERALD_EXPO_CA_FILE"])
        #expect(accessToken.count == 40 && FileManager.default.fileExists(atPath: caFile))

        // Without the bearer the sandbox refuses, as Expo does for a project with push security.
        let refused = try await ChildProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--http2", "--cacert", caFile, "-H", "content-type: application/json", "--data",
                #"{"to":"ExponentPushToken[x]","body":"hi"}"#,
                "https://127.0.0.1:\(sandbox.port)/--/api/v2/push/send",
            ])
        #expect(refused.stdout.contains("UNAUTHORIZED"), "\(refused.stdout)")

        let database = "sqlite:" + directory + "/h.db"
        let secret = "expo-sandbox-command-test-secret-0123456789"
        let flags = [
            "--expo-base-url", settings["HERALD_EXPO_BASE_URL"] ?? "", "--expo-access-token", accessToken,
            "--expo-ca-file", caFile,
        ]
        let server = try await HeraldProcess.start(database: database, secret: secret, extraArguments: flags)
        let key =
            try await HeraldExecutable.run(["keys", "create", "--database", database])
            .split(separator: "\n").last.map(String.init) ?? ""
        let token =
            try await HeraldExecutable.run(
                ["token", "--user", "dev-user", "--database", database, "--user-token-secret", secret]
            ).split(separator: "\n").last.map(String.init) ?? ""
        let client = LoopbackHTTPClient(port: server.port)
        let expoToken = "ExponentPushToken[\(UUID().uuidString.prefix(22))]"
        let registered = try await client.request(
            "POST", "/v1/me/devices", headers: Self.json(bearer: token),
            body: Array(#"{"token":"\#(expoToken)","provider":"expo","platform":"ios"}"#.utf8))
        #expect((200..<300).contains(registered.status))
        let published = try await client.request(
            "POST", "/v1/notifications", headers: Self.json(bearer: key),
            body: Array(
                #"{"recipients":["dev-user"],"type":"order.shipped","title":"Shipped","body":"Friday","push":{"send":true}}"#
                    .utf8))
        #expect(published.status == 202)

        var accepted = ""
        let clock = ContinuousClock()
        let end = clock.now + .seconds(10)
        while !accepted.contains(expoToken) && clock.now < end {
            try await Task.sleep(for: .milliseconds(50))
            accepted =
                try await ChildProcess.run(
                    "/usr/bin/curl",
                    ["-sS", "--cacert", caFile, "https://127.0.0.1:\(sandbox.port)/admin/expo/accepted"]
                ).stdout
        }
        #expect(accepted.contains(expoToken) && accepted.contains("Shipped"), "\(accepted)")
        #expect(await server.stop() == .exited(0))
        #expect(await sandbox.stop() == .exited(0))
    }

    /// The `KEY='value'` lines of a herald.env, comments skipped.
    private static func readEnvironmentFile(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
                .trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        return settings
    }

    private static func json(bearer: String) -> [(String, String)] {
        [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")]
    }
}
