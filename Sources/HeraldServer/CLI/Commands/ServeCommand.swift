import FoundationEssentials
import HeraldHTTP
import HeraldStore

/// `herald serve`: runs the server until SIGTERM or SIGINT, then drains.
struct ServeCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        try Self.refuseRemovedSettings(raw, environment: cli.environment)
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        let configuration = try Self.configuration(args)
        let logger = Logger(label: "herald", level: configuration.logLevel)
        let app = try await HeraldApplication(configuration: configuration, logger: logger)
        try app.start()
        // Announced once SIGTERM and SIGINT are handled, so a signal sent on seeing the line drains.
        let listening = ["host": configuration.host, "port": String(app.port)]
        let signal = await SignalHandling.waitForTermination { logger.info("herald listening", metadata: listening) }
        cli.err("herald: received signal \(signal), draining")
        await app.stop()
        return 0
    }

    /// Settings that `serve` took once and no longer does: named in a clear error, not left to
    /// "unknown option" or silently ignored in the environment.
    static let removedSettings: [(flag: String, twin: String, why: String)] = [
        (
            "push-http-engine", "HERALD_PUSH_HTTP_ENGINE",
            "the libcurl engine was removed; push always uses Herald's own HTTP/2 client (nghttp2)"
        )
    ]

    static func refuseRemovedSettings(_ raw: [String], environment: [String: String]) throws {
        for setting in removedSettings {
            let given = raw.contains { $0 == "--" + setting.flag || $0.hasPrefix("--" + setting.flag + "=") }
            if given || environment[setting.twin] != nil {
                throw CLIError("--\(setting.flag) (\(setting.twin)) was removed: \(setting.why); drop the setting")
            }
        }
    }

    /// What `serve` runs with: each flag, else its `HERALD_*` twin, else the default.
    static func configuration(_ args: Arguments) throws -> HeraldConfiguration {
        var configuration = HeraldConfiguration()
        configuration.databaseURL = args.databaseURL
        configuration.userTokenSecret = args.value("user-token-secret")
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
        configuration.connectionMemoryBytes = try args.int(
            "connection-memory", default: configuration.connectionMemoryBytes, range: 4096...(1 << 20))
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
        configuration.databasePipelineDepth = try args.int(
            "database-pipeline-depth", default: configuration.databasePipelineDepth,
            range: PostgresPoolSettings.pipelineDepthRange)
        configuration.maxTokenLifetime = TimeInterval(try args.maxTokenLifetime())
        configuration.publisherLimits = try args.publisherLimits()
        configuration.consoleSessions = try args.consoleSessionSettings()
        configuration.logLevel = try args.logLevel(default: configuration.logLevel)
        configuration.apns = try args.apnsSettings()
        configuration.fcm = try args.fcmSettings()
        if let appsFile = args.value("apps-file") { configuration.apps = try AppsFile.load(path: appsFile) }
        configuration.pushWorker = try args.pushWorkerSettings()
        configuration.expo = try args.expoSettings()
        configuration.attention.wakeInterval = .milliseconds(
            try args.int("schedule-poll-interval", default: 1_000, range: 10...3_600_000))
        configuration.attention.batchSize = try args.int(
            "schedule-batch-size", default: configuration.attention.batchSize, range: 1...10_000)
        configuration.webhooks = try args.webhookSettings()
        return configuration
    }

    static let spec = CommandSpec(
        name: "serve", summary: "Run the server (inbox, preferences, devices, live updates, app config).",
        usage: "Usage: herald serve [--host 127.0.0.1] [--port 8080] [--database URL]",
        sections: [
            .options(server),
            .init("Publisher limits (per API key; every publisher call counts):", publisherLimits),
            .init(
                "Push delivery (APNs is on only when key file, key id, team id and topic are all given):", Option.push,
                note: """
                    Rows for a provider that is not configured (APNs or FCM without settings) end failed
                    with reason provider_not_configured.
                    """),
            .init("Expo (on by default: it needs no key material):", Option.expo),
            .init("Scheduled sends and digests:", attention),
            .init("Webhooks (POST /v1/webhooks):", Option.webhooks),
        ],
        epilogue: """
            SIGTERM or SIGINT stops accepting, lets in-flight requests and pushes finish and exits.

            Example:
              HERALD_PORT=9000 herald serve --database sqlite:/var/lib/herald/herald.db
            """,
        column: 30)

    private static let server: [Option] = [
        .value("host", "HOST", "Address to listen on {twin} (default 127.0.0.1)"),
        .value("port", "PORT", "Port, 0 picks a free one {twin} (default 8080)"),
        .database(
            """
            sqlite:./herald.db, sqlite:///abs/path.db, sqlite::memory: or
            postgres://user[:password]@host:port/db (shared by several servers)
            {twin} (default sqlite:./herald.db)
            """),
        .value(
            "database-pool-size", "N",
            """
            PostgreSQL connections per process, 1 to 100; a request
            waits up to 5 s for a free one, then gets 503
            {twin} (default 8)
            """),
        .value(
            "database-pipeline-depth", "N",
            """
            PostgreSQL inbox reads a connection sends together
            (one round trip) when every pooled connection is
            busy, 1 to 64; 1 sends each alone {twin} (default 16)
            """),
        .userTokenSecret(
            """
            HS256 secret for user tokens {twin}
            (generated and kept in the database when unset)
            """),
        .value(
            "max-body-bytes", "N",
            """
            Largest request body; larger gets 413 {twin}
            (default 1048576)
            """),
        .maxTokenLifetime(
            """
            Longest a user token may still have to live: one whose exp
            is further away (beyond 60 s of clock skew) gets 401; 60 to
            31536000 {twin} (default 2592000, 30 days)
            """),
        .value(
            "console-session-idle", "SECONDS",
            """
            A console session unused this long ends; 60 to 86400
            {twin} (default 1800)
            """),
        .value(
            "console-session-lifetime", "SECONDS",
            """
            A console session ends this long after sign-in, however
            active; 60 to 2592000, at least the idle time {twin}
            (default 43200)
            """),
        .value(
            "http-threads", "N",
            """
            libmicrohttpd threads (epoll, one per core is plenty)
            {twin} (default 2)
            """),
        .value(
            "max-json-depth", "N",
            """
            Deepest nesting of a JSON body (objects and arrays); deeper
            gets 400 json_too_deep {twin} (default 32)
            """),
        .value(
            "max-connections", "N",
            """
            Most open connections {twin} (default: the
            open-files limit less 256 kept for the database, logs and
            push connections; at most half the limit is kept;
            a larger value is lowered to it)
            """),
        .value(
            "connection-memory", "BYTES",
            """
            Memory each connection holds while open: the request
            head must fit in it (else 431; 414 for a request line)
            {twin} (4096 to 1048576; default 36864: above 32 KiB
            each connection's memory is mapped, and returned to the
            system when it closes)
            """),
        .value(
            "max-connections-per-address", "N",
            """
            Most open connections from one client address; more are
            closed at once, 0 = no cap {twin}
            (default 512)
            """),
        .value(
            "request-head-timeout", "SECONDS",
            """
            From connecting to a whole request head; later gets 408 and
            the connection closes {twin} (default 10)
            """),
        .value(
            "request-body-timeout", "SECONDS",
            """
            From a request head to the end of its body; later gets 408
            and the connection closes {twin}
            (default 30)
            """),
        .value(
            "request-timeout", "SECONDS",
            """
            A handler slower than this is stopped and answered 503
            timeout {twin} (default 30)
            """),
        .value(
            "max-streams-per-user", "N",
            """
            Live-update streams one user may hold; a new one ends the
            oldest with event: closed, reason replaced
            {twin} (default 16)
            """),
        .value(
            "idle-timeout", "SECONDS",
            """
            A connection with nothing to do is closed, and a kept-alive
            one must send its next request head within it
            {twin} (default 60)
            """),
        .value(
            "log-level", "LEVEL",
            """
            trace, debug, info, notice, warning, error, critical
            {twin} (default info)
            """),
    ]

    private static let attention: [Option] = [
        .value(
            "schedule-poll-interval", "MS",
            """
            Longest wait, in milliseconds, between looks for scheduled
            notifications and digests that are due (a publish on this
            server wakes it at once; another server's is found by then)
            {twin} (default 1000)
            """),
        .value(
            "schedule-batch-size", "N",
            """
            Scheduled notifications published, and digests sent, per
            transaction {twin} (default 500)
            """),
    ]

    private static let publisherLimits: [Option] = [
        .value(
            "publisher-rate", "N",
            """
            Calls a second a key regains, fractions allowed (0.5: one
            every 2 s); over it: 429 rate_limited with Retry-After;
            0 turns it off {twin} (default 100)
            """),
        .value(
            "publisher-burst", "N",
            """
            Calls a key may make at once, 1 to 1000000
            {twin} (default 1000)
            """),
        .value(
            "max-active-broadcasts", "N",
            """
            Broadcasts a key may have queued or running at once; one more
            gets 409 too_many_broadcasts; 0: no cap
            {twin} (default 5)
            """),
        .value(
            "max-publish-bytes", "N",
            """
            Most one POST /v1/notifications may store: recipients x the
            bytes of title, body, data, deepLink and detail; over it:
            413 publish_too_large {twin}
            (default 16777216)
            """),
    ]
}

extension Logger.Level {
    /// Parses `info`, `warning`, ...
    init?(name: String) {
        let all: [(String, Logger.Level)] = [
            ("trace", .trace), ("debug", .debug), ("info", .info), ("notice", .notice),
            ("warning", .warning), ("error", .error), ("critical", .critical),
        ]
        guard let match = all.first(where: { $0.0 == name.lowercased() }) else { return nil }
        self = match.1
    }
}
