import HeraldModel
import HeraldServerModel

/// `herald send`: publishes one notification through a running server's `POST /v1/notifications`.
struct SendCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        guard let user = args.value("user"), let type = args.value("type"),
            let title = args.value("title"), let body = args.value("body")
        else { throw CLIError("--user, --type, --title and --body are required") }
        let request = PublishRequest(
            recipients: [user], type: type, title: title, body: body, deepLink: args.value("deep-link"),
            push: PushOptions(send: !args.has("no-push")))
        do {
            try request.validate()
        } catch let error as ValidationError {
            throw CLIError(error.message)
        }
        let client = try await PublisherClient(args, keyName: "herald send")
        return try await client.post("/v1/notifications", request, cli: cli)
    }

    static let spec = CommandSpec(
        name: "send", summary: "Publish a notification from the shell (development).",
        usage: """
            Usage: herald send --user ID --type TYPE --title TITLE --body BODY [--deep-link URL]
                               [--no-push] [--url http://127.0.0.1:8080] [--api-key KEY] [--database URL]

            Publishes one notification through a running server's POST /v1/notifications.
            Without --api-key (HERALD_API_KEY), creates a key named "herald send" in the database.
            """,
        sections: [
            .options(
                [
                    .value("user", "ID", twin: .none, "The recipient"),
                    .value("type", "TYPE", twin: .none, "The notification type, such as order.shipped"),
                    .value("title", "TITLE", twin: .none, "Its title"),
                    .value("body", "BODY", twin: .none, "Its body"),
                    .value("deep-link", "URL", twin: .none, "Where a tap leads"),
                    .toggle("no-push", "Only the inbox: no push"),
                ] + PublisherClient.options)
        ],
        epilogue: """
            Example:
              herald send --user alice --type order.shipped --title "Your order shipped" --body "Arrives Friday"
            """,
        column: 19)
}
