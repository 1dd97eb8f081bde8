import Testing

@Suite("herald serve: Expo settings")
struct ExpoCLITests {
    @Test("--help documents every Expo flag with its environment twin, and that Expo is on by default")
    func help() async {
        let help = await CLITests.run(["serve", "--help"]).out.joined()
        for name in ["expo-base-url", "expo-access-token", "expo-ca-file", "expo-receipt-delay"] {
            #expect(help.contains("--\(name)"), "\(name)")
            #expect(help.contains("HERALD_" + name.uppercased().replacingOccurrences(of: "-", with: "_")), "\(name)")
        }
        #expect(help.contains("on by default") && help.contains("https://exp.host"))
    }

    @Test("a base URL that is not http(s) and a receipt delay out of range are start-up errors (exit 2, named)")
    func badSettings() async {
        let url = await CLITests.run(
            ["serve", "--database", "sqlite::memory:"], environment: ["HERALD_EXPO_BASE_URL": "exp.host"])
        #expect(url.status == 2 && url.err.joined().contains("--expo-base-url"), "\(url.err)")
        for delay in ["-1", "forever", "86401"] {
            let result = await CLITests.run(["serve", "--database", "sqlite::memory:", "--expo-receipt-delay", delay])
            #expect(result.status == 2 && result.err.joined().contains("--expo-receipt-delay"), "\(delay)")
        }
    }
}
