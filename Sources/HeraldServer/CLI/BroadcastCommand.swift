import Foundation
import HeraldHTTP
import HeraldModel
import HeraldServerModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `herald broadcast`: stores a broadcast through a running server's `POST /v1/broadcasts` and
/// prints the answer (its id, `queued`); the server fans it out in the background.
struct BroadcastCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        let args = try Arguments(
            raw, valued: ["users", "type", "title", "body", "deep-link", "url", "api-key", "database"],
            switches: ["all", "no-push"], environment: cli.environment)
        if args.has("help") {
            cli.out(Help.broadcast)
            return 0
        }
        guard let type = args.values["type"], let title = args.values["title"], let body = args.values["body"]
        else { throw CLIError("--type, --title and --body are required") }
        let audience: BroadcastAudience
        switch (args.has("all"), args.values["users"]) {
        case (true, nil): audience = .all
        case (false, let users?): audience = .users(users.split(separator: ",").map(String.init))
        default: throw CLIError("give exactly one of --all and --users ID,ID,...")
        }
        let request = BroadcastRequest(
            audience: audience, type: type, title: title, body: body, deepLink: args.values["deep-link"],
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
            let app = try await HeraldApplication(
                configuration: cli.configuration(args), logger: Logger(label: "herald", level: .warning))
            apiKey = try await app.createAPIKey(name: "herald broadcast")
        }
        let base = args.value("url") ?? "http://127.0.0.1:8080"
        guard let url = URL(string: base + "/v1/broadcasts") else { throw CLIError("--url is not a URL") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.httpBody = try JSONEncoder().encode(request)
        let (data, response) = try await URLSession.shared.data(for: urlRequest)
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

extension Help {
    static let broadcast = """
        Usage: herald broadcast (--all | --users ID,ID,...) --type TYPE --title TITLE --body BODY
                                [--deep-link URL] [--no-push] [--url http://127.0.0.1:8080] [--api-key KEY]
                                [--database URL]

        Stores a broadcast through a running server's POST /v1/broadcasts and prints its answer:
        the broadcast's id with status queued. The server gives every user it knows (--all) or
        the listed users the notification in the background; GET /v1/broadcasts/{id} shows how
        far it got. Without --api-key (HERALD_API_KEY), creates a key named "herald broadcast"
        in the database.

        Example:
          herald broadcast --all --type announcement.sale --title "Summer sale" --body "Half price"
        """
}
