import Foundation
import HeraldStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

    /// The server and key `args` name; without a key, one named `keyName` is created in the store.
    init(_ args: Arguments, keyName: String) async throws {
        if let configured = args.value("api-key") {
            apiKey = configured
        } else {
            apiKey = try await StoreAccess(args).createAPIKey(name: keyName)
        }
        base = args.value("url") ?? "http://127.0.0.1:8080"
    }

    /// POSTs `body` as JSON to `path`; prints a 202's body, or the status and body of anything
    /// else as an error (exit 1).
    func post(_ path: String, _ body: some Encodable, cli: HeraldCLI) async throws -> Int32 {
        guard let url = URL(string: base + path) else { throw CLIError("--url is not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let text = String(decoding: data, as: UTF8.self)
        guard status == 202 else {
            cli.err("herald: the server answered \(status): \(text)")
            return 1
        }
        cli.out(text)
        return 0
    }
}
