import FoundationEssentials
import HeraldModel
import HeraldStore

/// `herald keys create|list|revoke`: publisher API keys, in the store alone.
struct KeysCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let sub = raw.first, sub != "--help", sub != "-h" else {
            cli.out(Self.spec.help)
            return raw.isEmpty ? 2 : 0
        }
        switch sub {
        case "create": return try await create(Array(raw.dropFirst()))
        case "list": return try await list(Array(raw.dropFirst()))
        case "revoke": return try await revoke(Array(raw.dropFirst()))
        default:
            throw CLIError(
                "unknown keys command \"\(sub)\"; the commands are `keys create`, `keys list` and `keys revoke ID`")
        }
    }

    private func create(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, only: ["name", "database"], cli: cli) else { return 0 }
        let name = args.value("name") ?? "default"
        guard (1...100).contains(name.count) else { throw CLIError("--name must be 1 to 100 characters") }
        let key = try await StoreAccess(args).createAPIKey(name: name)
        cli.out("Created publisher API key \"\(name)\". It is shown once; only its hash is stored.")
        cli.out(key)
        return 0
    }

    /// `keys list`: one line per key that is not revoked, oldest first, under a header.
    private func list(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, only: ["database"], cli: cli) else { return 0 }
        let keys = try await StoreAccess(args).store.apiKeys()
        guard !keys.isEmpty else {
            cli.out("No API keys. Create one with `herald keys create --name NAME`.")
            return 0
        }
        let rows =
            [["ID", "NAME", "CREATED", "LAST USED"]]
            + keys.map { key in
                [key.id, key.name, Self.time(key.createdAt), key.lastUsedAt.map(Self.time) ?? "never"]
            }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = (0..<3).map { row[$0].padded(to: widths[$0]) }
            cli.out((padded + [row[3]]).joined(separator: "  "))
        }
        return 0
    }

    /// `keys revoke ID`: every server on the database refuses the key within a second.
    private func revoke(_ raw: [String]) async throws -> Int32 {
        let id = raw.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
        guard
            let args = try Self.spec.arguments(
                Array(raw.dropFirst(id == nil ? 0 : 1)), only: ["database"], cli: cli)
        else { return 0 }
        guard var id else { throw CLIError("keys revoke needs the id of a key (see `herald keys list`)") }
        let store = try await StoreAccess(args).store
        if id.hasPrefix("hk_") {
            // The key itself (a leaked one, say): found by its hash, as a server finds it.
            guard let record = try await store.apiKey(hash: APIKeys.hash(id)) else {
                cli.err("herald: that API key is unknown or already revoked; `herald keys list` shows the ids")
                return 1
            }
            id = record.id
        }
        switch try await store.revokeAPIKey(id: id, at: Date()) {
        case .revoked:
            cli.out("Revoked API key \(id). Servers refuse it within a second.")
            return 0
        case .alreadyRevoked(let at):
            cli.out("API key \(id) was already revoked at \(Self.time(at)).")
            return 0
        case .notFound:
            cli.err("herald: no API key has the id \"\(id)\"; `herald keys list` shows the ids")
            return 1
        }
    }

    /// An RFC 3339 time in UTC, to the second.
    private static func time(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static let spec = CommandSpec(
        name: "keys", summary: "Create, list and revoke publisher API keys (keys create|list|revoke).",
        usage: """
            Usage: herald keys create [--name NAME] [--database URL]
                   herald keys list [--database URL]
                   herald keys revoke ID [--database URL]

            create  Creates a publisher API key. The key is the last line of the output; only its
                    SHA-256 hash is stored, so keep it. Publishers send it as
                    `Authorization: Bearer <key>`.
            list    Lists the keys that are not revoked, oldest first: id, name, created, last used
                    (written at most once a minute per server, so up to a minute behind).
            revoke  Revokes the key with this id (`key_...`, from `keys list`; the key itself works
                    too). Every server on the database refuses it within a second, without a restart.
                    An unknown id exits 1; revoking a revoked key again changes nothing.
            """,
        sections: [
            .options([
                .value("name", "NAME", twin: .none, "A label for the key, 1 to 100 characters (default \"default\")"),
                .database("sqlite:./herald.db or postgres://... {twin}"),
            ])
        ],
        epilogue: """
            Rotating a key: create the new one, deploy it to the publisher, then revoke the old one
            (its last use shows when nothing sends with it any more).

            Examples:
              KEY=$(herald keys create --name backend | tail -n 1)
              herald keys list
              herald keys revoke key_0123456789ab
            """,
        column: 19)
}
