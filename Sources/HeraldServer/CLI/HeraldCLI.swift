import FoundationEssentials
import HeraldLog
import HeraldModel

/// The `herald` command line: `serve`, `migrate`, `keys create|list|revoke`, `token`, `send`, `broadcast`,
/// `bench`, `sandbox`, one file each under `Commands/`.
public struct HeraldCLI: Sendable {
    let environment: [String: String]
    let out: @Sendable (String) -> Void
    let err: @Sendable (String) -> Void

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        out: @escaping @Sendable (String) -> Void = { print($0) },
        err: @escaping @Sendable (String) -> Void = { StderrLogHandler.writeAll($0 + "\n") }
    ) {
        self.environment = environment
        self.out = out
        self.err = err
    }

    /// One command: its table (usage, options, help) and what runs it.
    struct Entry: Sendable {
        let spec: CommandSpec
        let run: @Sendable (HeraldCLI, [String]) async throws -> Int32
    }

    /// Every command, in the order `herald --help` lists them.
    static let commands: [Entry] = [
        Entry(spec: ServeCommand.spec) { try await ServeCommand(cli: $0).run($1) },
        Entry(spec: MigrateCommand.spec) { try await MigrateCommand(cli: $0).run($1) },
        Entry(spec: KeysCommand.spec) { try await KeysCommand(cli: $0).run($1) },
        Entry(spec: TokenCommand.spec) { try await TokenCommand(cli: $0).run($1) },
        Entry(spec: SendCommand.spec) { try await SendCommand(cli: $0).run($1) },
        Entry(spec: BroadcastCommand.spec) { try await BroadcastCommand(cli: $0).run($1) },
        Entry(spec: BenchCommand.spec) { try await BenchCommand(cli: $0).run($1) },
        Entry(spec: SandboxCommand.spec) { try await SandboxCommand(cli: $0).run($1) },
    ]

    /// Runs one command line (without the program name) and returns the exit status.
    public func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first, command != "--help", command != "-h", command != "help" else {
            out(Self.help)
            return arguments.isEmpty ? 2 : 0
        }
        do {
            guard let entry = Self.commands.first(where: { $0.spec.name == command }) else {
                throw CLIError("unknown command \"\(command)\"")
            }
            return try await entry.run(self, Array(arguments.dropFirst()))
        } catch let error as CLIError {
            err("herald: \(error.description)\nRun `herald \(command) --help` for usage.")
            return 2
        } catch {
            err("herald: \(error)")
            return 1
        }
    }

    /// `herald --help`: the commands with their summaries.
    static var help: String {
        let commands = Self.commands.map { entry in
            "  " + entry.spec.name.padded(to: 14) + entry.spec.summary
        }
        return """
            herald: the Herald notification server.

            Usage: herald <command> [options]

            Commands:
            \(commands.joined(separator: "\n"))

            Every option has an environment twin: --port is HERALD_PORT, --database is HERALD_DATABASE_URL.
            Flags win over the environment. Run `herald <command> --help` for a command's options.

            Example:
              herald serve --port 8080 --database sqlite:./herald.db
            """
    }
}
