import FoundationEssentials
import HeraldStore

/// What `send` and `broadcast` share: a running server's publisher API at `--url`, called with
/// `--api-key` (or a key created in the database under the command's name), answering 202.
struct PublisherClient {
    /// The options both commands take, after their content flags.
    static let options: [Option] = [
        .value("url", "URL", "The server {twin} (default http://127.0.0.1:8080)"),
        .value("api-key", "KEY", "A publisher API key {twin} (default: a new one, see above)"),
        .database("The database to create that key in {twin}"),
    ]

    let base: String
    let apiKey: String

    /// How long a call may take, from the lookup to the answer's end.
    static let timeout: TimeInterval = 60
    /// The most of an answer read: a publish's answer names each recipient's notification id.
    static let maxResponseBytes = 64 * 1024 * 1024

    /// The server and key `args` name; without a key, one named `keyName` is created in the store.
    init(_ args: Arguments, keyName: String) async throws {
        if let configured = args.value("api-key") {
            guard !configured.isEmpty, configured.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                throw CLIError("--api-key must be printable ASCII without spaces (hk_<id>_<secret>)")
            }
            apiKey = configured
        } else {
            apiKey = try await StoreAccess(args).createAPIKey(name: keyName)
        }
        base = args.value("url") ?? "http://127.0.0.1:8080"
    }

    /// POSTs `body` as JSON to `path`; prints a 202's body, or the status and body of anything
    /// else as an error (exit 1).
    func post(_ path: String, _ body: some Encodable, cli: HeraldCLI) async throws -> Int32 {
        let url: WebhookURL
        do {
            url = try WebhookURL(base + path)
        } catch {
            throw CLIError("--url is not an http:// or https:// URL: \(error.message)")
        }
        var settings = WebhookSettings()
        settings.allowPrivateAddresses = true
        settings.timeout = Self.timeout
        settings.maxResponseBytes = Self.maxResponseBytes
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await WebhookClient(settings: settings).postReadingBody(
                to: url, headers: [("Authorization", "Bearer \(apiKey)"), ("Content-Type", "application/json")],
                body: Array(try JSONEncoder().encode(body)))
        } catch let failure as WebhookClient.Failure {
            let reason = failure.message(timeout: settings.timeout)
            switch failure.kind {
            case .refused, .unresolved, .connect, .tls: throw CLIError("cannot reach \(base): \(reason)")
            case .timedOut, .protocolError, .cancelled:
                throw CLIError("no complete answer from \(base) (the call may have been carried out): \(reason)")
            }
        }
        let status = answer.status
        let text = String(decoding: answer.body, as: UTF8.self)
        guard status == 202 else {
            cli.err("herald: the server answered \(status): \(text)")
            return 1
        }
        cli.out(text)
        return 0
    }
}
