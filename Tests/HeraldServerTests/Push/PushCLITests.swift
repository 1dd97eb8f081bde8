import Testing

@Suite("herald serve: push settings")
struct PushCLITests {
    @Test("--help documents every push flag with its environment twin")
    func help() async {
        let help = await CLITests.run(["serve", "--help"]).out.joined()
        for name in [
            "apns-key-file", "apns-key-id", "apns-team-id", "apns-topic", "apns-base-url", "apns-ca-file",
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
}
