import Foundation
import HeraldHTTPTestSupport
import HeraldTestSupport
import Testing

/// `herald sandbox` and `herald serve` as real processes, joined the way a developer joins them:
/// the sandbox's `herald.env` settings become the server's flags.
struct SandboxProcesses {
    let directory: String
    let sandbox: HeraldProcess
    /// The `KEY='value'` settings of the sandbox's `herald.env`.
    let settings: [String: String]

    /// Starts a sandbox on a free port with its state in a new temporary directory.
    static func startSandbox() async throws -> SandboxProcesses {
        let directory = try TemporaryDirectory("herald-sandbox").path
        let sandbox = try await launchSandbox(in: directory)
        return SandboxProcesses(
            directory: directory, sandbox: sandbox, settings: try readEnvironmentFile(directory + "/herald.env"))
    }

    /// Starts `herald sandbox --port 0` with its state in `directory`, and `flags`.
    static func launchSandbox(in directory: String, flags: [String] = []) async throws -> HeraldProcess {
        try await HeraldProcess.launch(
            ["sandbox", "--port", "0", "--state-dir", directory] + flags, startupLine: "herald sandbox listening")
    }

    /// The `KEY='value'` lines of a herald.env, comments skipped.
    static func readEnvironmentFile(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
                .trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        return settings
    }

    /// `--<prefix>-<flag> VALUE` for each `(SETTING, flag)`, the value being herald.env's
    /// `HERALD_<PREFIX>_<SETTING>`.
    func flags(_ prefix: String, _ pairs: [(setting: String, flag: String)]) -> [String] {
        pairs.flatMap { ["--\(prefix.lowercased())-\($0.flag)", settings["HERALD_\(prefix)_\($0.setting)"] ?? ""] }
    }

    /// `GET path` on the sandbox over TLS, trusting its certificate.
    func admin(_ path: String) async throws -> String {
        try await ChildProcess.run(
            "/usr/bin/curl",
            ["-sS", "--cacert", settings["HERALD_APNS_CA_FILE"] ?? "", "https://127.0.0.1:\(sandbox.port)\(path)"]
        ).stdout
    }

    /// The accepted list at `/admin/<provider>/accepted` once it mentions `token`, polling for
    /// up to 10 s (then the last answer, whatever it is).
    func accepted(_ provider: String, containing token: String) async throws -> String {
        var accepted = ""
        _ = try await becomesTrue(every: .milliseconds(50)) {
            accepted = try await admin("/admin/\(provider)/accepted")
            return accepted.contains(token)
        }
        return accepted
    }

    /// Starts `herald serve` on a database in the sandbox's directory with `flags`, and makes a
    /// publisher key and a token for `dev-user` with the CLI.
    func startServer(flags: [String]) async throws -> ServedApp {
        let database = "sqlite:" + directory + "/h.db"
        let secret = "sandbox-processes-test-secret-0123456789"
        let server = try await HeraldProcess.start(database: database, secret: secret, extraArguments: flags)
        let key =
            try await HeraldExecutable.run(["keys", "create", "--database", database])
            .split(separator: "\n").last.map(String.init) ?? ""
        let token =
            try await HeraldExecutable.run(
                ["token", "--user", "dev-user", "--database", database, "--user-token-secret", secret]
            ).split(separator: "\n").last.map(String.init) ?? ""
        return ServedApp(process: server, apiKey: key, userToken: token)
    }

    /// Stops the sandbox (expecting exit 0) and removes its directory.
    func stop() async {
        #expect(await sandbox.stop() == .exited(0))
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A `herald serve` process with a publisher key and a token for `dev-user`.
struct ServedApp {
    let process: HeraldProcess
    let apiKey: String
    let userToken: String

    /// Registers `token` for `dev-user` over HTTP.
    func register(_ token: String, provider: String, platform: String) async throws {
        let registered = try await LoopbackHTTPClient(port: process.port).request(
            "POST", "/v1/me/devices", headers: Self.json(bearer: userToken),
            body: Array(#"{"token":"\#(token)","provider":"\#(provider)","platform":"\#(platform)"}"#.utf8))
        #expect((200..<300).contains(registered.status), "\(registered.text)")
    }

    /// Publishes "Shipped" / "Friday" with push to `dev-user` over HTTP.
    func publishWithPush() async throws {
        let published = try await LoopbackHTTPClient(port: process.port).request(
            "POST", "/v1/notifications", headers: Self.json(bearer: apiKey),
            body: Array(
                #"{"recipients":["dev-user"],"type":"order.shipped","title":"Shipped","body":"Friday","push":{"send":true}}"#
                    .utf8))
        #expect(published.status == 202, "\(published.text)")
    }

    /// Stops the server, expecting exit 0.
    func stop() async {
        #expect(await process.stop() == .exited(0))
    }

    private static func json(bearer: String) -> [(String, String)] {
        [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json")]
    }
}
