import FoundationEssentials
import HeraldModel
import HeraldStore

/// `herald bench seed`, `herald bench push-seed` and `herald bench tokens`: data for the
/// benchmark scripts; `herald bench sanitize` times the HTML sanitizer, `herald bench transport`
/// the push providers' HTTP/2 client.
struct BenchCommand {
    let cli: HeraldCLI

    func run(_ raw: [String]) async throws -> Int32 {
        guard let sub = raw.first, sub != "--help" else {
            cli.out(Self.spec.help)
            return raw.isEmpty ? 2 : 0
        }
        guard let args = try Self.spec.arguments(Array(raw.dropFirst()), cli: cli) else { return 0 }
        let users = try args.int("users", default: 10_000, range: 1...1_000_000)
        let seedStarted = ContinuousClock.now
        switch sub {
        case "seed":
            let total = try args.int("notifications", default: 1_000_000, range: 1...100_000_000)
            try await seed(store: try await StoreAccess(args).store, users: users, total: total)
        case "push-seed":
            let devices = try args.int("devices", default: 100_000, range: 1...10_000_000)
            let seeded = try await BenchPushSeed(store: try await StoreAccess(args).store).seed(devices: devices)
            cli.out("seeded \(seeded) APNs deliveries in \(ContinuousClock.now - seedStarted)")
        case "tokens":
            guard let output = args.value("output") else { throw CLIError("--output FILE is required") }
            let minter = try await StoreAccess(args).userTokens(secret: args.value("user-token-secret"))
            let tokens = try (0..<users).map { try minter.mint(Self.userID($0), ttl: 86_400) }
            try Data((tokens.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: output), options: .atomic)
            cli.out("wrote \(users) user tokens to \(output)")
        case "sanitize":
            BenchSanitize(out: cli.out).run(repeats: try args.int("repeat", default: 3, range: 1...100))
        case "transport":
            let bench = BenchTransport(
                out: cli.out, count: try args.int("count", default: 10_000, range: 1...10_000_000),
                window: try args.int("window", default: 500, range: 1...100_000),
                connections: try args.int("connections", default: 2, range: 1...64))
            switch (args.value("url"), args.value("ca-file")) {
            case (nil, nil): try await bench.runInProcess()
            case (let url?, let caFile?): try await bench.run(url: url, caFile: caFile)
            default: throw CLIError("bench transport takes --url URL and --ca-file FILE together, or neither")
            }
        default:
            throw CLIError(
                "unknown bench command \"\(sub)\"; use `bench seed`, `bench push-seed`, `bench tokens`, "
                    + "`bench sanitize` or `bench transport`")
        }
        return 0
    }

    static func userID(_ index: Int) -> String { "bench-user-\(index)" }

    /// Publishes `total` notifications round-robin over `users`, 1,000 recipients per transaction.
    private func seed(store: any HeraldStore, users: Int, total: Int) async throws {
        let types = [
            "order.shipped", "promo.flash", "loyalty.points", "reminder.expiry", "account.security", "system.news",
        ]
        let started = ContinuousClock.now
        var written = 0
        var batchIndex = 0
        while written < total {
            let count = min(1_000, total - written)
            let now = Date()
            let batch = (0..<count).map { offset in
                let sequence = written + offset
                let type = types[(sequence / users) % types.count]
                return NewNotification(
                    id: TimeOrderedID.make(), userID: Self.userID(sequence % users), type: type,
                    category: Catalog.standard.category(forType: type), hidden: false,
                    title: "Notification \(sequence)", body: "Seeded for the inbox benchmark, number \(sequence).",
                    data: ["orderId": String(sequence)], deepLink: nil, detail: nil, push: nil, createdAt: now)
            }
            _ = try await store.publish(batch, catalog: .standard, idempotency: nil)
            written += count
            batchIndex += 1
            if batchIndex % 100 == 0 { cli.out("seeded \(written)/\(total)") }
        }
        let elapsed = ContinuousClock.now - started
        cli.out("seeded \(written) notifications for \(users) users in \(elapsed)")
    }

    static let spec = CommandSpec(
        name: "bench", summary: "Seed data and mint tokens for scripts/bench-inbox.sh and bench-push.sh.",
        usage: """
            Usage: herald bench seed [--users 10000] [--notifications 1000000] [--database URL]
                   herald bench push-seed [--devices 100000] [--database URL]
                   herald bench tokens --output FILE [--users 10000] [--database URL]
                   herald bench sanitize [--repeat 3]
                   herald bench transport [--url URL --ca-file FILE] [--count 10000] [--window 500] [--connections 2]

            `seed` publishes notifications round-robin over the users bench-user-0 ... bench-user-N-1,
            1,000 per transaction. `push-seed` registers one production APNs device for each of the
            users bench-push-user-0 ... N-1 and publishes one notification with push to all of them,
            so the outbox holds N queued APNs deliveries (run it with the worker off: no `serve`).
            `tokens` writes one user token per line for those users. `sanitize` times the HTML
            sanitizer on inputs that once cost it quadratic time (best of --repeat runs each).
            `transport` times the push providers' HTTP/2 client: --count POSTs over TLS, --window in
            flight, to the sandbox's HTTP/2 server in this process (answering before the body, then
            after reading it; its threads' CPU counted apart), or to --url trusting --ca-file
            (scripts/bench-push-transport.sh).
            """,
        sections: [
            .options([
                .value("users", "N", "Users of seed and tokens {twin} (default 10000)"),
                .value("notifications", "N", "Notifications seed writes {twin} (default 1000000)"),
                .value("devices", "N", "Devices push-seed registers {twin} (default 100000)"),
                .value("output", "FILE", "Where tokens writes {twin}"),
                .value("repeat", "N", "Runs of each sanitize input {twin} (default 3)"),
                .value("url", "URL", "Where transport POSTs {twin} (default: a server in process)"),
                .value("ca-file", "FILE", "The CA transport trusts {twin}"),
                .value("count", "N", "POSTs transport sends {twin} (default 10000)"),
                .value("window", "N", "POSTs transport keeps in flight {twin} (default 500)"),
                .value("connections", "N", "Connections transport may open {twin} (default 2)"),
                .database("sqlite:./herald.db or postgres://... {twin}"),
                .userTokenSecret(
                    """
                    The secret tokens signs with {twin}
                    (default: the database's)
                    """),
            ])
        ],
        column: 30)
}
