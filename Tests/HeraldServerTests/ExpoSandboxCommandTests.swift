import Foundation
import HeraldHTTPTestSupport
import Testing

/// `herald sandbox` and `herald serve` as processes, joined by herald.env's `HERALD_EXPO_*`
/// settings: an Expo push published through the API shows up in the sandbox, over TLS.
@Suite("herald sandbox: Expo", .serialized)
struct ExpoSandboxCommandTests {
    @Test("herald.env has the HERALD_EXPO_* settings; herald serve with them delivers an Expo push to the sandbox")
    func serveSendsExpoToSandbox() async throws {
        let processes = try await SandboxProcesses.startSandbox()
        let settings = processes.settings
        #expect(settings["HERALD_EXPO_BASE_URL"] == "https://127.0.0.1:\(processes.sandbox.port)")
        let accessToken = try #require(settings["HERALD_EXPO_ACCESS_TOKEN"])
        let caFile = try #require(settings["HERALD_EXPO_CA_FILE"])
        #expect(accessToken.count == 40 && FileManager.default.fileExists(atPath: caFile))

        // Without the bearer the sandbox refuses, as Expo does for a project with push security.
        let refused = try await ChildProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--http2", "--cacert", caFile, "-H", "content-type: application/json", "--data",
                #"{"to":"ExponentPushToken[x]","body":"hi"}"#,
                "https://127.0.0.1:\(processes.sandbox.port)/--/api/v2/push/send",
            ])
        #expect(refused.stdout.contains("UNAUTHORIZED"), "\(refused.stdout)")

        let server = try await processes.startServer(
            flags: processes.flags(
                "EXPO", [("BASE_URL", "base-url"), ("ACCESS_TOKEN", "access-token"), ("CA_FILE", "ca-file")]))
        let expoToken = "ExponentPushToken[\(UUID().uuidString.prefix(22))]"
        try await server.register(expoToken, provider: "expo", platform: "ios")
        try await server.publishWithPush()

        let accepted = try await processes.accepted("expo", containing: expoToken)
        #expect(accepted.contains(expoToken) && accepted.contains("Shipped"), "\(accepted)")
        await server.stop()
        await processes.stop()
    }
}
