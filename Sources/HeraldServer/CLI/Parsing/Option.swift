import HeraldModel

/// One flag of a command: the single source of how it parses, which environment variable is its
/// twin and what `--help` says about it, so the help cannot name a flag or twin the parser does
/// not know.
struct Option: Sendable {
    /// The flag without its dashes: `port` is `--port`.
    let name: String
    /// What the value is called in the help (`PORT`); `nil` for a switch, which takes no value.
    let placeholder: String?
    /// The environment variable read when the flag is not given; `nil` when there is none.
    let twin: String?
    /// The help text after the flag column, wrapped by hand; `{twin}` marks where `[HERALD_...]`
    /// is printed.
    let help: String

    /// How a flag's twin is named.
    enum Twin: Sendable {
        /// `HERALD_` and the flag's name in capitals, dashes as underscores: `--max-body-bytes` is
        /// `HERALD_MAX_BODY_BYTES`.
        case standard
        case named(String)
        case none
    }

    /// A flag that takes a value.
    static func value(_ name: String, _ placeholder: String, twin: Twin = .standard, _ help: String) -> Option {
        Option(name: name, placeholder: placeholder, twin: twin, help: help)
    }

    /// A switch: given or not, no value; no twin unless asked (then the twin turns it on with
    /// `1`, `true` or `yes`, see ``Arguments/flag(_:)``).
    static func toggle(_ name: String, twin: Twin = .none, _ help: String) -> Option {
        Option(name: name, placeholder: nil, twin: twin, help: help)
    }

    private init(name: String, placeholder: String?, twin: Twin, help: String) {
        self.name = name
        self.placeholder = placeholder
        switch twin {
        case .standard: self.twin = "HERALD_" + name.uppercased().replacingLiteral("-", with: "_")
        case .named(let variable): self.twin = variable
        case .none: self.twin = nil
        }
        precondition(
            help.contains("{twin}") == (self.twin != nil),
            "--\(name): the help must show its twin exactly when it has one")
        self.help = help
    }

    /// `--name PLACEHOLDER` as the help's flag column shows it.
    var usage: String { "--" + name + (placeholder.map { " " + $0 } ?? "") }

    /// The help text with the twin in brackets.
    var renderedHelp: String {
        help.replacingLiteral("{twin}", with: twin.map { "[\($0)]" } ?? "")
    }
}

extension Option {
    /// `--database URL`, which every command that opens the store takes; `help` says it for that command.
    static func database(_ help: String) -> Option {
        .value("database", "URL", twin: .named("HERALD_DATABASE_URL"), help)
    }

    /// `--user-token-secret SECRET` (`HERALD_USER_TOKEN_SECRET`).
    static func userTokenSecret(_ help: String) -> Option { .value("user-token-secret", "SECRET", help) }

    /// `--max-token-lifetime SECONDS` (`HERALD_MAX_TOKEN_LIFETIME`): what `serve` accepts and `token` mints at most.
    static func maxTokenLifetime(_ help: String) -> Option { .value("max-token-lifetime", "SECONDS", help) }
}
