import Foundation
import HeraldHTTP
import HeraldSandbox

/// `herald sandbox`: the APNs, FCM and Expo look-alikes over TLS (HTTP/2) on loopback, with
/// their key material and a `herald.env` that points `herald serve` at them, until SIGTERM or SIGINT.
struct SandboxCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(raw, valued: ["host", "port", "state-dir"], environment: cli.environment)
        if args.has("help") {
            cli.out(Help.sandbox)
            return 0
        }
        // The twins are HERALD_SANDBOX_*: HERALD_HOST and HERALD_PORT belong to `serve`.
        let twin = { (flag: String) -> String? in
            let key = "HERALD_SANDBOX_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
            return args.values[flag] ?? cli.environment[key].flatMap { $0.isEmpty ? nil : $0 }
        }
        let host = args.values["host"] ?? "127.0.0.1"
        let rawPort = twin("port") ?? "8090"
        guard let port = Int(rawPort), (0...65535).contains(port) else {
            throw CLIError("--port must be a whole number from 0 to 65535, not \"\(rawPort)\"")
        }
        let directory = URL(fileURLWithPath: twin("state-dir") ?? ".herald-sandbox").standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let credentials = try SandboxCredentials.loadOrCreate(in: directory)
        let sandbox = try APNsSandbox(credentials: credentials)
        let fcm = try FCMSandbox(credentials: credentials)
        let expo = ExpoSandbox(accessToken: credentials.expoAccessToken)
        let server = try HTTP2Server.start(
            configuration: HTTP2ServerConfiguration(host: host, port: port, tls: credentials.tls),
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
        return header + settings.map { "\($0.0)='\($0.1.replacingOccurrences(of: "'", with: #"'\''"#))'\n" }.joined()
    }
}
