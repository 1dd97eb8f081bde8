import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

/// `herald sandbox` as a developer runs it: its env file points a real `herald serve` at it and
/// the push arrives; it stops cleanly and keeps its key.
@Suite("herald sandbox", .serialized)
struct SandboxCommandTests {
    @Test("herald.env points herald serve at the sandbox: a published push shows up as accepted")
    func serveSendsToSandbox() async throws {
        let processes = try await SandboxProcesses.startSandbox()
        let settings = processes.settings
        #expect(settings["HERALD_APNS_BASE_URL"] == "https://127.0.0.1:\(processes.sandbox.port)")
        #expect(settings["HERALD_APNS_TOPIC"] == "dev.herald.sandbox")
        for key in ["HERALD_APNS_KEY_FILE", "HERALD_APNS_CA_FILE"] {
            let path = try #require(settings[key])
            #expect(path.hasPrefix("/") && FileManager.default.fileExists(atPath: path), "\(key)=\(path)")
        }
        let keyID = try #require(settings["HERALD_APNS_KEY_ID"])
        #expect(settings["HERALD_APNS_KEY_FILE"]?.hasSuffix("/AuthKey_\(keyID).p8") == true)

        let server = try await processes.startServer(
            flags: processes.flags(
                "APNS",
                [
                    ("KEY_FILE", "key-file"), ("KEY_ID", "key-id"), ("TEAM_ID", "team-id"), ("TOPIC", "topic"),
                    ("BASE_URL", "base-url"), ("CA_FILE", "ca-file"),
                ]))
        let deviceToken = String(repeating: "ab12", count: 16)
        try await server.register(deviceToken, provider: "apns", platform: "ios")
        try await server.publishWithPush()

        let accepted = try await processes.accepted("apns", containing: deviceToken)
        #expect(accepted.contains(deviceToken) && accepted.contains("Shipped"), "\(accepted)")
        await server.stop()
        await processes.stop()
    }

    @Test("herald.env's FCM settings: a real herald serve exchanges a token and its FCM push is accepted")
    func serveSendsToFCMSandbox() async throws {
        let processes = try await SandboxProcesses.startSandbox()
        let settings = processes.settings
        #expect(settings["HERALD_FCM_BASE_URL"] == "https://127.0.0.1:\(processes.sandbox.port)")
        let accountFile = try #require(settings["HERALD_FCM_SERVICE_ACCOUNT"])
        let account = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: accountFile)))
        #expect(
            (account as? [String: String])?["token_uri"] == "https://127.0.0.1:\(processes.sandbox.port)/token")

        let server = try await processes.startServer(
            flags: processes.flags(
                "FCM", [("SERVICE_ACCOUNT", "service-account"), ("BASE_URL", "base-url"), ("CA_FILE", "ca-file")]))
        let registrationToken = "fcm-sandbox-command:APA91bH-0123456789"
        try await server.register(registrationToken, provider: "fcm", platform: "android")
        try await server.publishWithPush()

        let accepted = try await processes.accepted("fcm", containing: registrationToken)
        #expect(accepted.contains(registrationToken) && accepted.contains("Shipped"), "\(accepted)")
        #expect(accepted.contains(#""tokenExchanges":1"#), "\(accepted)")
        await server.stop()
        await processes.stop()
    }

    @Test("--log-level debug logs a refused TLS handshake, the default info does not; an unknown level stops it")
    func logLevel() async throws {
        let directory = try TemporaryDirectory("herald-sandbox")
        for (flags, logged) in [(["--log-level", "debug"], true), ([], false)] {
            let sandbox = try await SandboxProcesses.launchSandbox(in: directory.path, flags: flags)
            // curl does not trust the sandbox's self-signed certificate, so it breaks off the handshake.
            let curl = try await ChildProcess.run(
                "/usr/bin/curl", ["--silent", "--max-time", "10", "https://127.0.0.1:\(sandbox.port)/"])
            #expect(curl.exit.code == 60, "\(curl.stderr)")
            if logged {
                _ = try await becomesTrue { sandbox.stderr.contains("sandbox: a TLS handshake failed") }
            }
            #expect(await sandbox.stop(signal: SIGTERM) == .exited(0))
            let log = sandbox.stderr
            #expect(log.contains("sandbox: a TLS handshake failed") == logged, "\(flags): \(log)")
        }
        let bad = await CLITests.run(["sandbox", "--log-level", "loud"])
        #expect(bad.status == 2)
        #expect(bad.err.joined().contains(#"--log-level must be one of trace, debug, info"#), "\(bad.err)")
        let twin = await CLITests.run(["sandbox", "--help"])
        #expect(twin.out.joined(separator: "\n").contains("HERALD_SANDBOX_LOG_LEVEL"))
    }

    @Test(
        "--max-body-bytes: a body over it is 413 over HTTP/1.1, one under it reaches the look-alike; bad values stop it"
    )
    func maxBodyBytes() async throws {
        let directory = try TemporaryDirectory("herald-sandbox")
        let sandbox = try await SandboxProcesses.launchSandbox(
            in: directory.path, flags: ["--max-body-bytes", "2048"])
        var codes: [String] = []
        for size in [3_000, 1_000] {
            let curl = try await ChildProcess.run(
                "/usr/bin/curl",
                [
                    "--silent", "--max-time", "10", "--http1.1", "-o", "/dev/null", "--write-out", "%{http_code}",
                    "-H", "content-type: application/json", "--data-binary", String(repeating: " ", count: size),
                    "http://127.0.0.1:\(sandbox.port)/--/api/v2/push/send",
                ])
            codes.append(curl.stdout)
        }
        #expect(await sandbox.stop(signal: SIGTERM) == .exited(0))
        // Under the limit, the Expo look-alike reads it: no bearer token, so 401.
        #expect(codes == ["413", "401"])
        for value in ["100", "lots"] {
            let bad = await CLITests.run(["sandbox", "--max-body-bytes", value])
            #expect(bad.status == 2, "\(value)")
            #expect(bad.err.joined().contains("--max-body-bytes"), "\(bad.err)")
        }
        let help = await CLITests.run(["sandbox", "--help"])
        #expect(help.out.joined(separator: "\n").contains("HERALD_SANDBOX_MAX_BODY_BYTES"))
    }

    @Test("SIGTERM stops the sandbox with exit 0; a second start reuses the key id")
    func stopsCleanlyAndKeepsItsKey() async throws {
        let processes = try await SandboxProcesses.startSandbox()
        defer { try? FileManager.default.removeItem(atPath: processes.directory) }
        let first = processes.sandbox
        let firstKeyID = processes.settings["HERALD_APNS_KEY_ID"]
        #expect(await first.stop(signal: SIGTERM) == .exited(0))
        _ = try await becomesTrue { first.stderr.contains("herald sandbox stopped") }
        let log = first.stderr
        #expect(log.contains("herald sandbox stopped"), "\(log)")

        let second = try await SandboxProcesses.launchSandbox(in: processes.directory)
        let environment = try SandboxProcesses.readEnvironmentFile(processes.directory + "/herald.env")
        #expect(environment["HERALD_APNS_KEY_ID"] == firstKeyID)
        #expect(firstKeyID != nil)
        #expect(await second.stop(signal: SIGINT) == .exited(0))
    }
}
