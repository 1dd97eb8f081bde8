import Testing

@testable import HeraldServer

/// The command tables: the one source of parsing, environment twins and `--help`.
@Suite("herald command tables")
struct CommandTableTests {
    static let commands = HeraldCLI.commands.map(\.spec)

    @Test("--help of every command shows each of its options with the twin the parser reads")
    func helpShowsEveryOption() async {
        for spec in Self.commands {
            let help = await CLITests.run([spec.name, "--help"])
            #expect(help.status == 0, "\(spec.name)")
            #expect(help.out.joined(separator: "\n") == spec.help, "\(spec.name)")
            for option in spec.options {
                #expect(spec.help.contains("  " + option.usage), "\(spec.name) --\(option.name)")
                if let twin = option.twin { #expect(spec.help.contains("[\(twin)]"), "\(spec.name) \(twin)") }
            }
        }
        let main = await CLITests.run(["--help"]).out.joined()
        for spec in Self.commands { #expect(main.contains("  " + spec.name + " "), "\(spec.name)") }
    }

    @Test("a flag wins over its twin, and the twin is read when the flag is not given")
    func twins() throws {
        for spec in Self.commands {
            for option in spec.options where option.placeholder != nil {
                let twin = option.twin.map { [$0: "from-the-environment"] } ?? [:]
                #expect(
                    try spec.parse([], environment: twin).value(option.name)
                        == option.twin.map { _ in
                            "from-the-environment"
                        })
                let flagged = try spec.parse(["--\(option.name)", "from-the-flag"], environment: twin)
                #expect(flagged.value(option.name) == "from-the-flag", "\(spec.name) --\(option.name)")
            }
        }
    }

    @Test("a flag outside the command's table is a usage error")
    func unknownFlag() {
        for spec in Self.commands {
            #expect(throws: CLIError.self) { try spec.parse(["--not-an-option"], environment: [:]) }
        }
    }
}
