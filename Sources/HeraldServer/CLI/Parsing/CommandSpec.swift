/// One command's table: its options (which drive parsing and environment twins) and the text
/// around them; `--help` is rendered from it, so help and parser cannot drift apart.
struct CommandSpec: Sendable {
    /// A titled group of options in the help, with an optional note under it.
    struct Section: Sendable {
        let title: String
        let options: [Option]
        let note: String?

        init(_ title: String, _ options: [Option], note: String? = nil) {
            self.title = title
            self.options = options
            self.note = note
        }

        /// The options under the usual title.
        static func options(_ options: [Option]) -> Section {
            Section("Options (environment twin in brackets):", options)
        }
    }

    /// The command word (`serve`).
    let name: String
    /// Its line in `herald --help`.
    let summary: String
    /// The usage and description before the options.
    let usage: String
    let sections: [Section]
    /// What follows the options (signals, examples).
    let epilogue: String?
    /// Where the help text of an option starts; a longer flag gets a line of its own.
    let column: Int

    init(
        name: String, summary: String, usage: String, sections: [Section], epilogue: String? = nil, column: Int
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.sections = sections
        self.epilogue = epilogue
        self.column = column
        let names = options.map(\.name)
        precondition(Set(names).count == names.count, "herald \(name): an option is listed twice")
    }

    /// Every option the command takes.
    var options: [Option] { sections.flatMap(\.options) }

    /// The option called `name`.
    func option(_ name: String) -> Option {
        guard let option = options.first(where: { $0.name == name }) else {
            preconditionFailure("herald \(self.name) has no option --\(name)")
        }
        return option
    }

    /// Parses `arguments` (after the command words) against every option of the table.
    func parse(_ arguments: [String], environment: [String: String]) throws -> Arguments {
        try Arguments(arguments, options: options, environment: environment)
    }

    /// Parses `arguments` against only the options called `names` (a subcommand that takes fewer).
    func parse(_ arguments: [String], only names: [String], environment: [String: String]) throws -> Arguments {
        try Arguments(arguments, options: names.map(option), environment: environment)
    }

    /// Parses `arguments` as ``parse(_:environment:)`` does (against only `names` when given),
    /// or prints ``help`` and answers nil when `--help` was asked for.
    func arguments(_ arguments: [String], only names: [String]? = nil, cli: HeraldCLI) throws -> Arguments? {
        let parsed =
            try names.map { try parse(arguments, only: $0, environment: cli.environment) }
            ?? parse(arguments, environment: cli.environment)
        guard !parsed.has("help") else {
            cli.out(help)
            return nil
        }
        return parsed
    }

    /// `herald CMD --help`.
    var help: String {
        var blocks = [usage]
        for section in sections {
            var lines = [section.title]
            for option in section.options { lines += render(option) }
            if let note = section.note { lines.append(note) }
            blocks.append(lines.joined(separator: "\n"))
        }
        if let epilogue { blocks.append(epilogue) }
        return blocks.joined(separator: "\n\n")
    }

    private func render(_ option: Option) -> [String] {
        let flag = "  " + option.usage
        let indent = String(repeating: " ", count: column)
        let text = option.renderedHelp.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var lines: [String]
        var rest = text[...]
        if flag.count + 2 <= column {
            lines = [flag + String(repeating: " ", count: column - flag.count) + (rest.popFirst() ?? "")]
        } else {
            lines = [flag]
        }
        lines += rest.map { indent + $0 }
        return lines
    }
}
