import Foundation

/// Flags of one command: `--name value`, `--name=value` and bare `--switch`, each with an
/// environment twin (`HERALD_NAME`); flags win.
struct Arguments {
    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    let environment: [String: String]

    /// Parses `arguments` (after the command words). `valued` lists the flags that take a value.
    init(_ arguments: [String], valued: Set<String>, switches allowed: Set<String> = [], environment: [String: String])
        throws
    {
        self.environment = environment
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
            if name == "help" || allowed.contains(name) {
                guard inlineValue == nil else { throw CLIError("--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
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

    /// The flag's value, else its `HERALD_*` twin, else `nil`.
    func value(_ name: String) -> String? {
        if let value = values[name] { return value }
        let key = "HERALD_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        return environment[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    func has(_ name: String) -> Bool { switches.contains(name) }

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
