import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// `herald broadcast`: stores a broadcast through a running server's `POST /v1/broadcasts` and
/// prints the answer (its id, `queued`); the server fans it out in the background.
struct BroadcastCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        guard let type = args.value("type"), let title = args.value("title"), let body = args.value("body")
        else { throw CLIError("--type, --title and --body are required") }
        let audience: BroadcastAudience
        switch (args.has("all"), args.value("users")) {
        case (true, nil): audience = .all
        case (false, let users?): audience = .users(users.split(separator: ",").map(String.init))
        default: throw CLIError("give exactly one of --all and --users ID,ID,...")
        }
        let request = BroadcastRequest(
            audience: audience, type: type, title: title, body: body, deepLink: args.value("deep-link"),
            push: PushOptions(send: !args.has("no-push")))
        do {
            try request.validate()
        } catch let error as ValidationError {
            throw CLIError(error.message)
        }
        let client = try await PublisherClient(args, keyName: "herald broadcast")
        return try await client.post("/v1/broadcasts", request, cli: cli)
    }

    static let spec = CommandSpec(
        name: "broadcast", summary: "Send a notification to every user or a list, as a background job.",
        usage: """
            Usage: herald broadcast (--all | --users ID,ID,...) --type TYPE --title TITLE --body BODY
                                    [--deep-link URL] [--no-push] [--url http://127.0.0.1:8080] [--api-key KEY]
                                    [--database URL]

            Stores a broadcast through a running server's POST /v1/broadcasts and prints its answer:
            the broadcast's id with status queued. The server gives every user it knows (--all) or
            the listed users the notification in the background; GET /v1/broadcasts/{id} shows how
            far it got. Without --api-key (HERALD_API_KEY), creates a key named "herald broadcast"
            in the database.
            """,
        sections: [
            .options(
                [
                    .toggle("all", "Every user the server knows"),
                    .value("users", "ID,ID,...", twin: .none, "Only these users"),
                    .value("type", "TYPE", twin: .none, "The notification type, such as announcement.sale"),
                    .value("title", "TITLE", twin: .none, "Its title"),
                    .value("body", "BODY", twin: .none, "Its body"),
                    .value("deep-link", "URL", twin: .none, "Where a tap leads"),
                    .toggle("no-push", "Only the inbox: no push"),
                ] + PublisherClient.options)
        ],
        epilogue: """
            Example:
              herald broadcast --all --type announcement.sale --title "Summer sale" --body "Half price"
            """,
        column: 22)
}
