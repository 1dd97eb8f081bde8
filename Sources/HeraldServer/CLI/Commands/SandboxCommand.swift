import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldSandbox

/// `herald sandbox`: the APNs, FCM and Expo look-alikes over TLS (HTTP/2) on loopback, with
/// their key material and a `herald.env` that points `herald serve` at them, until SIGTERM or SIGINT.
struct SandboxCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        let logger = Logger(label: "herald-sandbox", level: try args.logLevel(default: .info))
        let host = args.value("host") ?? "127.0.0.1"
        let rawPort = args.value("port") ?? "8090"
        guard let port = Int(rawPort), (0...65535).contains(port) else {
            throw CLIError("--port must be a whole number from 0 to 65535, not \"\(rawPort)\"")
        }
        let directory = URL(fileURLWithPath: args.value("state-dir") ?? ".herald-sandbox").standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let maxBodyBytes = try args.int(
            "max-body-bytes", default: HTTP2ServerConfiguration.defaultMaxRequestBodyBytes, range: 1_024...1 << 30)
        let credentials = try SandboxCredentials.loadOrCreate(in: directory)
        let sandbox = try APNsSandbox(credentials: credentials)
        let fcm = try FCMSandbox(credentials: credentials)
        let expo = ExpoSandbox(accessToken: credentials.expoAccessToken, maxBodyBytes: maxBodyBytes)
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(
                host: host, port: port, tls: credentials.tls, logger: logger, maxRequestBodyBytes: maxBodyBytes),
            answering: SandboxRouter(sandbox.routes + fcm.routes + expo.routes).answer)
        // The token endpoint's port is known only now (port 0 picks one).
        try credentials.fcm.write(tokenURI: "https://127.0.0.1:\(server.port)/token")
        let envFile = directory + "/herald.env"
        try Self.environmentFile(credentials: credentials, port: server.port)
            .write(toFile: envFile, atomically: true, encoding: .utf8)
        let startup = "herald sandbox listening host=\(host) port=\(server.port) env=\(envFile)"
        let signal = await SignalHandling.waitForTermination { [cli] in cli.err(startup) }
        cli.err("herald sandbox: received signal \(signal), stopping")
        await server.stop()
        cli.err(
            "herald sandbox stopped connections=\(server.connectionsAccepted) client_resets=\(server.resetsReceived) "
                + "client_goaways=\(server.goAwaysReceived)")
        return 0
    }

    static let spec = CommandSpec(
        name: "sandbox", summary: "Run the local push provider sandbox (APNs, FCM and Expo look-alikes).",
        usage: """
            Usage: herald sandbox [--host 127.0.0.1] [--port 8090] [--state-dir DIR] [--log-level LEVEL]
                                  [--max-body-bytes N]

            Runs the local push provider sandbox over HTTP/2 and HTTP/1.1: an APNs look-alike that checks
            provider tokens, headers and payloads as strictly as Apple's servers; an FCM HTTP v1
            look-alike with its OAuth2 token endpoint (POST /token) that checks service-account
            assertions, access tokens and message bodies as strictly as Google's; and an Expo push
            service look-alike (send and getReceipts, with an access token, gzip bodies) as strict as
            Expo's. Each records what it accepts. The providers' official SDKs work against it
            (aioapns, firebase-admin, exponent_server_sdk): see the README.
            """,
        sections: [
            .options([
                .value("host", "HOST", twin: .none, "Address to listen on (default 127.0.0.1)"),
                // HERALD_HOST and HERALD_PORT belong to `serve`.
                .value(
                    "port", "PORT", twin: .named("HERALD_SANDBOX_PORT"),
                    "Port, 0 picks a free one {twin} (default 8090)"),
                .value(
                    "state-dir", "DIR", twin: .named("HERALD_SANDBOX_STATE_DIR"),
                    """
                    Where the key material is kept and reused {twin}
                    (default ./.herald-sandbox)
                    """),
                .value(
                    "log-level", "LEVEL", twin: .named("HERALD_SANDBOX_LOG_LEVEL"),
                    """
                    trace, debug, info, notice, warning, error, critical
                    {twin} (default info; debug adds refused handshakes and
                    broken connections)
                    """),
                .value(
                    "max-body-bytes", "N", twin: .named("HERALD_SANDBOX_MAX_BODY_BYTES"),
                    """
                    A request body (or an Expo body once inflated) over N
                    bytes is answered 413 {twin}
                    (default 4194304, 1024 to 1073741824)
                    """),
            ])
        ],
        epilogue: """
            On first start DIR gets the APNs .p8 key (AuthKey_<KEYID>.p8) with its ids (apns.json),
            an FCM service account (fcm-service-account.json, RSA 2048), the Expo access token
            (expo.json) and a self-signed TLS certificate (sandbox-cert.pem, sandbox-key.pem). Every
            start rewrites the service account's token_uri with the port listened on, and writes
            DIR/herald.env: the HERALD_APNS_*, HERALD_FCM_* and HERALD_EXPO_* settings (absolute
            paths) that point `herald serve` at this sandbox. It logs
            `herald sandbox listening ... port=N env=PATH`.

            Admin endpoints (same port; over TLS trust DIR/sandbox-cert.pem):
              GET    /admin/apns/accepted  The accepted notifications, oldest first, and counts per status
              POST   /admin/apns/faults    {"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
                                           "times"?}; fault is unregistered, badDeviceToken,
                                           tooManyRequests, serviceUnavailable, delay, dropConnection
                                           or none (clears that token's fault)
              DELETE /admin/apns/faults    Clears every fault
              GET    /admin/fcm/accepted   The accepted FCM messages, oldest first, counts per status and
                                           the number of access tokens issued
              POST   /admin/fcm/faults     {"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
                                           "times"?}; fault is unregistered, senderIdMismatch,
                                           tooManyRequests, unavailable, delay, dropConnection or none
              DELETE /admin/fcm/faults     Clears every FCM fault
              DELETE /admin/fcm/access-tokens  Revokes every access token issued (the next send gets 401)
              GET    /admin/expo/accepted  The accepted Expo messages with their tickets, the size of
                                           each send, and counts per status
              POST   /admin/expo/faults    {"token", "fault", "retryAfter"?, "delayMilliseconds"?,
                                           "times"?}; fault is deviceNotRegisteredTicket,
                                           deviceNotRegisteredReceipt, messageRateExceeded,
                                           messageRateExceededReceipt, tooManyRequests, unavailable,
                                           delay, dropConnection or none
              DELETE /admin/expo/faults    Clears every Expo fault

            The port speaks TLS and cleartext: the first byte a client sends tells which. Over TLS,
            ALPN picks HTTP/2 (h2), else HTTP/1.1 (http/1.1 or no ALPN); in cleartext, the HTTP/2
            preface means h2c (curl --http2-prior-knowledge http://127.0.0.1:8090/...), anything
            else HTTP/1.1. The APNs look-alike answers HTTP/1.1 with 505, as APNs speaks HTTP/2
            only; FCM, its token endpoint and Expo take both. herald.env uses TLS.

            SIGTERM or SIGINT sends GOAWAY, lets streams in progress finish and exits 0.

            Examples:
              herald sandbox --state-dir ./.herald-sandbox &
              set -a; . ./.herald-sandbox/herald.env; set +a; herald serve
              curl -s --cacert ./.herald-sandbox/sandbox-cert.pem https://127.0.0.1:8090/admin/apns/accepted
            """,
        column: 21)

    /// The shell-sourceable settings that point `herald serve` at a sandbox on `port`.
    static func environmentFile(credentials: SandboxCredentials, port: Int) -> String {
        let settings = [
            ("HERALD_APNS_KEY_FILE", credentials.keyPath),
            ("HERALD_APNS_KEY_ID", credentials.keyID),
            ("HERALD_APNS_TEAM_ID", credentials.teamID),
            ("HERALD_APNS_TOPIC", credentials.bundleID),
            ("HERALD_APNS_BASE_URL", "https://127.0.0.1:\(port)"),
            ("HERALD_APNS_CA_FILE", credentials.tls.certificatePath),
            ("HERALD_FCM_SERVICE_ACCOUNT", credentials.fcm.path),
            ("HERALD_FCM_BASE_URL", "https://127.0.0.1:\(port)"),
            ("HERALD_FCM_CA_FILE", credentials.tls.certificatePath),
            ("HERALD_EXPO_BASE_URL", "https://127.0.0.1:\(port)"),
            ("HERALD_EXPO_ACCESS_TOKEN", credentials.expoAccessToken),
            ("HERALD_EXPO_CA_FILE", credentials.tls.certificatePath),
        ]
        let header = """
            # Written by `herald sandbox` on each start: points `herald serve` at this sandbox.
            # Use: set -a; . \(credentials.directory)/herald.env; set +a; herald serve

            """
        return header + settings.map { "\($0.0)='\($0.1.replacingLiteral("'", with: #"'\''"#))'\n" }.joined()
    }
}
