import Foundation
import HeraldHTTP
import HeraldModel
import HeraldServerModel
import HeraldStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `herald` command line: `serve`, `migrate`, `keys create|list|revoke`, `token`, `send`, `broadcast`,
/// `bench`, `sandbox`.
public struct HeraldCLI: Sendable {
    let environment: [String: String]
    let out: @Sendable (String) -> Void
    let err: @Sendable (String) -> Void

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        out: @escaping @Sendable (String) -> Void = { print($0) },
        err: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.environment = environment
        self.out = out
        self.err = err
    }

    /// Runs one command line (without the program name) and returns the exit status.
    public func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first, command != "--help", command != "-h", command != "help" else {
            out(Help.main)
            return arguments.isEmpty ? 2 : 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "serve": return try await serve(rest)
            case "migrate": return try await migrate(rest)
            case "keys": return try await keys(rest)
            case "token": return try await token(rest)
            case "send": return try await send(rest)
            case "broadcast": return try await BroadcastCommand(cli: self).run(rest)
            case "bench": return try await BenchCommand(cli: self).run(rest)
            case "sandbox": return try await SandboxCommand(cli: self).run(rest)
            default: throw CLIError("unknown command \"\(command)\"")
            }
        } catch let error as CLIError {
            err(
                "herald: \(error.description)\nRun `herald \(command) --help` for usage."
            )
            return 2
        } catch {
            err("herald: \(error)")
            return 1
        }
    }

    private func serve(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(raw, valued: Self.serveFlags, environment: environment)
        if args.has("help") {
            out(Help.serve)
            return 0
        }
        let configuration = try serveConfiguration(args)
        let logger = Logger(label: "herald", level: configuration.logLevel)
        let app = try await HeraldApplication(configuration: configuration, logger: logger)
        try app.start()
        // Announced once SIGTERM and SIGINT are handled, so a signal sent on seeing the line drains.
        let listening = ["host": configuration.host, "port": String(app.port)]
        let signal = await SignalHandling.waitForTermination { logger.info("herald listening", metadata: listening) }
        err("herald: received signal \(signal), draining")
        await app.stop()
        return 0
    }

    /// The flags `serve` takes a value for.
    static let serveFlags = Arguments.pushFlags.union([
        "host", "port", "database", "user-token-secret", "max-body-bytes", "http-threads", "log-level",
        "database-pool-size", "max-token-lifetime", "publisher-rate", "publisher-burst", "max-active-broadcasts",
        "max-publish-bytes", "max-connections", "max-connections-per-address", "idle-timeout", "request-timeout",
        "request-head-timeout", "request-body-timeout", "max-streams-per-user", "max-json-depth",
    ])

    /// What `serve` runs with: each flag, else its `HERALD_*` twin, else the default.
    func serveConfiguration(_ args: Arguments) throws -> HeraldConfiguration {
        var configuration = configuration(args)
        configuration.host = args.value("host") ?? configuration.host
        configuration.port = try args.int("port", default: 8080, range: 0...65535)
        configuration.maxBodyBytes = try args.int("max-body-bytes", default: 1_048_576, range: 1024...(64 << 20))
        configuration.threadPoolSize = try args.int(
            "http-threads", default: configuration.threadPoolSize, range: 1...64)
        if args.value("max-connections") != nil {
            configuration.maxConnections = try args.int("max-connections", default: 0, range: 1...1_000_000)
        }
        configuration.maxConnectionsPerAddress = try args.int(
            "max-connections-per-address", default: configuration.maxConnectionsPerAddress, range: 0...1_000_000)
        configuration.idleTimeout = .seconds(try args.int("idle-timeout", default: 60, range: 1...86_400))
        configuration.requestTimeout = .seconds(try args.int("request-timeout", default: 30, range: 1...3_600))
        configuration.requestHeadTimeout = .seconds(
            try args.int("request-head-timeout", default: 10, range: 1...3_600))
        configuration.requestBodyTimeout = .seconds(
            try args.int("request-body-timeout", default: 30, range: 1...3_600))
        configuration.maxJSONDepth = try args.int(
            "max-json-depth", default: configuration.maxJSONDepth, range: 2...512)
        configuration.maxStreamsPerUser = try args.int(
            "max-streams-per-user", default: configuration.maxStreamsPerUser, range: 1...1_000)
        configuration.databasePoolSize = try args.int(
            "database-pool-size", default: configuration.databasePoolSize, range: PostgresPoolSettings.sizeRange)
        configuration.maxTokenLifetime = TimeInterval(try args.maxTokenLifetime())
        configuration.publisherLimits = try args.publisherLimits()
        if let level = args.value("log-level") {
            guard let parsed = Logger.Level(name: level) else {
                throw CLIError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
            }
            configuration.logLevel = parsed
        }
        configuration.apns = try args.apnsSettings()
        configuration.fcm = try args.fcmSettings()
        configuration.pushWorker = try args.pushWorkerSettings()
        configuration.pushHTTPEngine = try args.pushHTTPEngine()
        configuration.expo = try args.expoSettings()
        return configuration
    }

    private func migrate(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(raw, valued: ["database"], environment: environment)
        if args.has("help") {
            out(Help.migrate)
            return 0
        }
        let url = configuration(args).databaseURL
        let applied =
            try PostgresStore.isPostgresURL(url)
            ? PostgresStore.open(url: url).migrate() : SQLiteStore.open(url: url).migrate()
        out(
            applied.isEmpty
                ? "database is up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
        return 0
    }

    private func keys(_ raw: [String]) async throws -> Int32 {
        guard let sub = raw.first, sub != "--help", sub != "-h" else {
            out(Help.keys)
            return raw.isEmpty ? 2 : 0
        }
        switch sub {
        case "create": return try await createKey(Array(raw.dropFirst()))
        case "list": return try await listKeys(Array(raw.dropFirst()))
        case "revoke": return try await revokeKey(Array(raw.dropFirst()))
        default:
            throw CLIError(
                "unknown keys command \"\(sub)\"; the commands are `keys create`, `keys list` and `keys revoke ID`")
        }
    }

    private func createKey(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(raw, valued: ["name", "database"], environment: environment)
        if args.has("help") {
            out(Help.keys)
            return 0
        }
        let name = args.values["name"] ?? "default"
        guard (1...100).contains(name.count) else { throw CLIError("--name must be 1 to 100 characters") }
        let app = try await HeraldApplication(configuration: configuration(args), logger: quietLogger)
        let key = try await app.createAPIKey(name: name)
        out("Created publisher API key \"\(name)\". It is shown once; only its hash is stored.")
        out(key)
        return 0
    }

    /// `keys list`: one line per key that is not revoked, oldest first, under a header.
    private func listKeys(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(raw, valued: ["database"], environment: environment)
        if args.has("help") {
            out(Help.keys)
            return 0
        }
        let keys = try await StoreFactory.open(url: configuration(args).databaseURL).apiKeys()
        guard !keys.isEmpty else {
            out("No API keys. Create one with `herald keys create --name NAME`.")
            return 0
        }
        let rows =
            [["ID", "NAME", "CREATED", "LAST USED"]]
            + keys.map { key in
                [key.id, key.name, Self.time(key.createdAt), key.lastUsedAt.map(Self.time) ?? "never"]
            }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            out((padded + [row[3]]).joined(separator: "  "))
        }
        return 0
    }

    /// `keys revoke ID`: every server on the database refuses the key within a second.
    private func revokeKey(_ raw: [String]) async throws -> Int32 {
        let id = raw.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
        let args = try Arguments(
            Array(raw.dropFirst(id == nil ? 0 : 1)), valued: ["database"], environment: environment)
        if args.has("help") {
            out(Help.keys)
            return 0
        }
        guard var id else { throw CLIError("keys revoke needs the id of a key (see `herald keys list`)") }
        let store = try StoreFactory.open(url: configuration(args).databaseURL)
        if id.hasPrefix("hk_") {
            // The key itself (a leaked one, say): found by its hash, as a server finds it.
            guard let record = try await store.apiKey(hash: APIKeys.hash(id)) else {
                err("herald: that API key is unknown or already revoked; `herald keys list` shows the ids")
                return 1
            }
            id = record.id
        }
        switch try await store.revokeAPIKey(id: id, at: Date()) {
        case .revoked:
            out("Revoked API key \(id). Servers refuse it within a second.")
            return 0
        case .alreadyRevoked(let at):
            out("API key \(id) was already revoked at \(Self.time(at)).")
            return 0
        case .notFound:
            err("herald: no API key has the id \"\(id)\"; `herald keys list` shows the ids")
            return 1
        }
    }

    /// An RFC 3339 time in UTC, to the second.
    private static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    private func token(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(
            raw, valued: ["user", "ttl", "database", "user-token-secret", "max-token-lifetime"],
            environment: environment)
        if args.has("help") {
            out(Help.token)
            return 0
        }
        guard let user = args.values["user"] else { throw CLIError("--user is required") }
        do {
            try Validate.userID(user, field: "--user")
        } catch let error as ValidationError {
            throw CLIError(error.message)
        }
        let maxLifetime = try args.maxTokenLifetime()
        let requested = args.value("ttl") ?? String(min(86_400, maxLifetime))
        guard let ttl = Int(requested), (1...maxLifetime).contains(ttl) else {
            throw CLIError(
                "--ttl must be a whole number of seconds from 1 to \(maxLifetime) (the longest token a server accepts, "
                    + "--max-token-lifetime), not \"\(requested)\"")
        }
        let app = try await HeraldApplication(configuration: configuration(args), logger: quietLogger)
        out("User token for \(user), valid for \(ttl) s:")
        out(try app.userToken(for: user, ttl: TimeInterval(ttl)))
        return 0
    }

    private func send(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(
            raw, valued: ["user", "type", "title", "body", "deep-link", "url", "api-key", "database"],
            switches: ["no-push"], environment: environment)
        if args.has("help") {
            out(Help.send)
            return 0
        }
        guard let user = args.values["user"], let type = args.values["type"],
            let title = args.values["title"], let body = args.values["body"]
        else { throw CLIError("--user, --type, --title and --body are required") }
        let request = PublishRequest(
            recipients: [user], type: type, title: title, body: body, deepLink: args.values["deep-link"],
            push: PushOptions(send: !args.has("no-push")))
        do {
            try request.validate()
        } catch let error as ValidationError {
            throw CLIError(error.message)
        }
        let apiKey: String
        if let configured = args.value("api-key") {
            apiKey = configured
        } else {
            let app = try await HeraldApplication(configuration: configuration(args), logger: quietLogger)
            apiKey = try await app.createAPIKey(name: "herald send")
        }
        let base = args.value("url") ?? "http://127.0.0.1:8080"
        guard let url = URL(string: base + "/v1/notifications") else { throw CLIError("--url is not a URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = try JSONEncoder().encode(request)
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let text = String(decoding: data, as: UTF8.self)
        guard status == 202 else {
            err("herald: the server answered \(status): \(text)")
            return 1
        }
        out(text)
        return 0
    }

    /// The database and user-token secret every command shares (flag, then environment).
    func configuration(_ args: Arguments) -> HeraldConfiguration {
        var configuration = HeraldConfiguration()
        configuration.databaseURL =
            args.value("database") ?? environment["HERALD_DATABASE_URL"] ?? configuration.databaseURL
        configuration.userTokenSecret = args.value("user-token-secret")
        return configuration
    }

    private var quietLogger: Logger { Logger(label: "herald", level: .warning) }
}
