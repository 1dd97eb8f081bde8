import HeraldStore

/// `herald migrate`: applies the migrations the database lacks and exits. It opens only the store.
struct MigrateCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let args = try Self.spec.arguments(raw, cli: cli) else { return 0 }
        let applied = try await StoreFactory.migrate(url: args.databaseURL)
        cli.out(
            applied.isEmpty
                ? "database is up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
        return 0
    }

    static let spec = CommandSpec(
        name: "migrate", summary: "Apply database migrations and exit.",
        usage: """
            Usage: herald migrate [--database URL]

            Applies the numbered migrations the database lacks and exits. `serve` does this too.
            """,
        sections: [
            .options([
                .database(
                    """
                    sqlite:./herald.db, sqlite:///abs/path.db, or
                    postgres://user[:password]@host:port/db {twin}
                    (default sqlite:./herald.db). Processes migrating one PostgreSQL
                    database at once apply each migration once.
                    """)
            ])
        ],
        column: 19)
}
