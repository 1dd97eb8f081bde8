import FoundationEssentials
import HeraldHTTP

/// The flags of one command line, parsed against the command's table (``Option``):
/// `--name value`, `--name=value` and bare `--switch`; a flag not given reads its environment
/// twin. Flags win.
struct Arguments {
    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    private let options: [String: Option]
    let environment: [String: String]

    /// Parses `arguments` (after the command words) against `options`; `--help` is always a switch.
    init(_ arguments: [String], options: [Option], environment: [String: String]) throws {
        self.environment = environment
        self.options = Dictionary(options.map { ($0.name, $0) }) { first, _ in first }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw CLIError("unexpected argument \"\(argument)\"")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            let option = self.options[name]
            if name == "help" || (option != nil && option?.placeholder == nil) {
                guard inlineValue == nil else { throw CLIError("--\(name) takes no value") }
                switches.insert(name)
            } else if option != nil {
                if let inlineValue {
                    values[name] = inlineValue
                } else {
                    index += 1
                    guard index < arguments.count else { throw CLIError("--\(name) needs a value") }
                    values[name] = arguments[index]
                }
            } else {
                throw CLIError("unknown option --\(name)")
            }
            index += 1
        }
    }

    /// The flag's value, else its twin's (when set and not empty), else `nil`.
    func value(_ name: String) -> String? {
        guard let option = options[name] else { preconditionFailure("--\(name) is not in the command's table") }
        if let value = values[name] { return value }
        return option.twin.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the switch `name` (or `help`) was given.
    func has(_ name: String) -> Bool {
        precondition(name == "help" || options[name] != nil, "--\(name) is not in the command's table")
        return switches.contains(name)
    }

    /// Whether the switch `name` is on: given, or its twin set to `1`, `true` or `yes` (`0`,
    /// `false`, `no` or empty: off; anything else is a usage error).
    func flag(_ name: String) throws -> Bool {
        if has(name) { return true }
        guard let twin = options[name]?.twin, let raw = environment[twin] else { return false }
        switch raw.lowercased() {
        case "1", "true", "yes": return true
        case "", "0", "false", "no": return false
        default: throw CLIError("\(twin) must be 1, true or yes (on), or 0, false or no (off), not \"\(raw)\"")
        }
    }

    func int(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = value(name) else { return defaultValue }
        guard let number = Int(raw), range.contains(number) else {
            throw CLIError(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(raw)\"")
        }
        return number
    }
}

extension Arguments {
    /// `--database` (`HERALD_DATABASE_URL`), else `sqlite:./herald.db`. `HERALD_DATABASE`, the
    /// name a standard twin would have, has always been read before `HERALD_DATABASE_URL` and still is.
    var databaseURL: String {
        values["database"] ?? environment["HERALD_DATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? value("database")
            ?? HeraldConfiguration().databaseURL
    }

    /// `--log-level` (or its twin), else `fallback`: `serve` and `sandbox` read it alike.
    func logLevel(default fallback: Logger.Level) throws -> Logger.Level {
        guard let name = value("log-level") else { return fallback }
        guard let level = Logger.Level(name: name) else {
            throw CLIError(
                "--log-level must be one of trace, debug, info, notice, warning, error, critical, not \"\(name)\"")
        }
        return level
    }

    /// `--console-session-idle` and `--console-session-lifetime` (or their twins), in seconds.
    func consoleSessionSettings() throws -> ConsoleSessionSettings {
        var settings = ConsoleSessionSettings()
        let idle = try int(
            "console-session-idle", default: Int(settings.idleTimeout), range: ConsoleSessionSettings.idleTimeoutRange)
        let lifetime = try int(
            "console-session-lifetime", default: Int(settings.lifetime), range: ConsoleSessionSettings.lifetimeRange)
        guard lifetime >= idle else {
            throw CLIError(
                "--console-session-lifetime (\(lifetime)) must be at least --console-session-idle (\(idle))")
        }
        settings.idleTimeout = TimeInterval(idle)
        settings.lifetime = TimeInterval(lifetime)
        return settings
    }

    /// `--max-token-lifetime` (`HERALD_MAX_TOKEN_LIFETIME`) in seconds: what `serve` accepts and
    /// `token` mints at most.
    func maxTokenLifetime() throws -> Int {
        try int(
            "max-token-lifetime", default: Int(HeraldConfiguration.defaultMaxTokenLifetime),
            range: HeraldConfiguration.maxTokenLifetimeRange)
    }
}

extension Arguments {
    /// `--publisher-rate`, `--publisher-burst`, `--max-active-broadcasts`, `--max-publish-bytes`.
    func publisherLimits() throws -> PublisherLimits {
        var limits = PublisherLimits()
        if let raw = value("publisher-rate") {
            guard let rate = Double(raw), rate.isFinite, PublisherLimits.rateRange.contains(rate) else {
                throw CLIError(
                    "--publisher-rate must be calls a second from 0 (no limit) to 1000000, such as 100 or 0.5, not \"\(raw)\""
                )
            }
            limits.rate = rate
        }
        limits.burst = try int("publisher-burst", default: limits.burst, range: PublisherLimits.burstRange)
        limits.maxActiveBroadcasts = try int(
            "max-active-broadcasts", default: limits.maxActiveBroadcasts,
            range: PublisherLimits.maxActiveBroadcastsRange)
        limits.maxPublishBytes = try int(
            "max-publish-bytes", default: limits.maxPublishBytes, range: PublisherLimits.maxPublishBytesRange)
        return limits
    }
}

/// A usage error: printed with a hint to `--help`, exit status 2.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
