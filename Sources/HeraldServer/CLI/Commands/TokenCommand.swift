import FoundationEssentials
import HeraldModel

/// `herald token`: mints a user token with the server's secret. It opens only the store (where
/// the secret is kept unless one is given).
struct TokenCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        guard let user = args.value("user") else { throw CLIError("--user is required") }
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
        let store = try await StoreAccess(args)
        let token = try await store.userTokens(secret: args.value("user-token-secret")).mint(user, ttl: ttl)
        cli.out("User token for \(user), valid for \(ttl) s:")
        cli.out(token)
        return 0
    }

    static let spec = CommandSpec(
        name: "token", summary: "Mint a user token for development.",
        usage: """
            Usage: herald token --user ID [--ttl SECONDS] [--database URL] [--user-token-secret SECRET]
                                [--max-token-lifetime SECONDS]

            Mints an HS256 user token for ID, signed with the server's secret (read from the
            database unless given). The token is the last line of the output. Default TTL 86400 s;
            at most --max-token-lifetime [HERALD_MAX_TOKEN_LIFETIME] (default 2592000, 30 days),
            the longest a server with the same setting accepts.
            """,
        sections: [
            .options([
                .value("user", "ID", twin: .none, "The user the token is for (its sub)"),
                .value("ttl", "SECONDS", "Seconds the token is valid {twin} (default 86400)"),
                .database("sqlite:./herald.db or postgres://... {twin}"),
                .userTokenSecret(
                    """
                    The server's HS256 secret {twin}
                    (default: the one kept in the database)
                    """),
                .maxTokenLifetime(
                    """
                    The longest --ttl {twin}
                    (default 2592000)
                    """),
            ])
        ],
        epilogue: """
            Example:
              TOKEN=$(herald token --user alice | tail -n 1)
              curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/v1/me/notifications
            """,
        column: 32)
}
