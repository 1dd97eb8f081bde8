import Foundation
import HeraldTestSupport
import Testing

@Suite("herald serve: push settings")
struct PushCLITests {
    @Test("--help documents every push flag with its environment twin")
    func help() async {
        let help = await CLITests.run(["serve", "--help"]).out.joined()
        for name in [
            "apns-key-file", "apns-key-id", "apns-team-id", "apns-topic", "apns-base-url", "apns-ca-file",
            "fcm-service-account", "fcm-base-url", "fcm-ca-file",
            "push-concurrency", "push-batch-size", "push-lease", "push-retry-base", "push-retry-cap",
            "push-max-attempts",
        ] {
            #expect(help.contains("--\(name)"), "\(name)")
            #expect(help.contains("HERALD_" + name.uppercased().replacingOccurrences(of: "-", with: "_")), "\(name)")
        }
        #expect(help.contains("provider_not_configured"))
    }

    @Test("partial APNs settings and bad worker settings are start-up errors (exit 2, named)")
    func partialSettings() async {
        let partial = await CLITests.run(
            ["serve", "--port", "0", "--database", "sqlite::memory:", "--apns-key-file", "/tmp/key.p8"],
            environment: ["HERALD_APNS_TEAM_ID": "TEAM"])
        #expect(partial.status == 2)
        #expect(partial.err.joined().contains("missing --apns-key-id, --apns-topic"), "\(partial.err)")

        let caOnly = await CLITests.run(
            ["serve", "--database", "sqlite::memory:"], environment: ["HERALD_APNS_CA_FILE": "/x"])
        #expect(caOnly.status == 2 && caOnly.err.joined().contains("--apns-ca-file"))

        for bad in [["--push-concurrency", "0"], ["--push-retry-base", "10", "--push-retry-cap", "1"]] {
            let result = await CLITests.run(["serve", "--database", "sqlite::memory:"] + bad)
            #expect(result.status == 2, "\(bad)")
        }
    }

    @Test("the removed --push-http-engine stops serve with a message saying so, as a flag or its twin (exit 2)")
    func removedHTTPEngine() async {
        let serve = ["serve", "--port", "0", "--database", "sqlite::memory:"]
        for (arguments, environment) in [
            (serve, ["HERALD_PUSH_HTTP_ENGINE": "nghttp2"]), (serve + ["--push-http-engine", "libcurl"], [:]),
            (serve + ["--push-http-engine=libcurl"], [:]),
        ] {
            let result = await CLITests.run(arguments, environment: environment)
            #expect(result.status == 2, "\(arguments) \(environment)")
            let message = result.err.joined()
            #expect(
                message.contains(
                    "--push-http-engine (HERALD_PUSH_HTTP_ENGINE) was removed: the libcurl engine was removed"),
                "\(message)")
        }
        #expect(!(await CLITests.run(["serve", "--help"]).out.joined().contains("push-http-engine")))
    }

    @Test("FCM: a base URL or CA file without the service account is a usage error (exit 2)")
    func fcmWithoutServiceAccount() async {
        let result = await CLITests.run(
            ["serve", "--database", "sqlite::memory:"], environment: ["HERALD_FCM_BASE_URL": "https://127.0.0.1:1"])
        #expect(result.status == 2 && result.err.joined().contains("--fcm-base-url needs --fcm-service-account"))
    }

    @Test("FCM: an unreadable or unusable service-account file stops the start with a message naming it")
    func badServiceAccount() async throws {
        let scratch = try TemporaryDirectory("herald-fcm")
        defer { scratch.remove() }
        let directory = scratch.url
        let missing = directory.appendingPathComponent("missing.json").path
        let unreadable = await CLITests.run(
            ["serve", "--port", "0", "--database", "sqlite::memory:", "--fcm-service-account", missing])
        #expect(unreadable.status == 1)
        #expect(unreadable.err.joined().contains("cannot read the FCM service account file \(missing)"))

        let invalid = directory.appendingPathComponent("account.json").path
        try Data(#"{"type":"service_account","project_id":"p"}"#.utf8).write(to: URL(fileURLWithPath: invalid))
        let unusable = await CLITests.run(
            ["serve", "--port", "0", "--database", "sqlite::memory:"],
            environment: ["HERALD_FCM_SERVICE_ACCOUNT": invalid])
        #expect(unusable.status == 1)
        let message = unusable.err.joined()
        #expect(message.contains("the FCM service account file \(invalid) is not a usable"), "\(message)")
        #expect(message.contains("private_key"), "\(message)")
    }
}
