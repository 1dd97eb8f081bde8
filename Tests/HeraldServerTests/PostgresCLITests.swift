import Foundation
import HeraldHTTPTestSupport
import Testing

@testable import HeraldStore

/// `herald` with a `postgres://` URL: migrating, and serving the app and publisher routes.
@Suite("herald command line with PostgreSQL")
struct PostgresCLITests {
    @Test(
        "serve on PostgreSQL: a publish over HTTP reaches the inbox, reads back and is marked read (inbox reads pipelined, and each alone)",
        .enabled(if: testPostgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set (make test sets it)"),
        arguments: [[], ["--database-pipeline-depth", "1"]])
    func serveRoundTrip(flags: [String]) async throws {
        let base = try #require(testPostgresURL)
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_serve_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: base)
        try admin.executeUncached("CREATE SCHEMA \(schema)")
        defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
        let url = "\(base)?options=-c%20search_path%3D\(schema)"
        let secret = "postgres-serve-test-secret-0123456789"
        let server = try await HeraldProcess.start(database: url, secret: secret, extraArguments: flags)
        do {
            try await roundTrip(url: url, secret: secret, port: server.port)
        } catch {
            await server.stop()
            throw error
        }
        #expect(await server.stop() == .exited(0))
    }

    /// Creates a key and a token with the command line, then publishes, lists, reads and marks read over HTTP.
    private func roundTrip(url: String, secret: String, port: Int) async throws {
        let key = try #require(
            try await HeraldExecutable.run(["keys", "create", "--name", "pg", "--database", url])
                .split(separator: "\n").last.map(String.init))
        let token = try #require(
            try await HeraldExecutable.run([
                "token", "--user", "carol", "--ttl", "600", "--database", url, "--user-token-secret", secret,
            ]).split(separator: "\n").last.map(String.init))
        let client = LoopbackHTTPClient(port: port)

        let publish = try await client.request(
            "POST", "/v1/notifications",
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            body: Array(#"{"recipients":["carol"],"type":"order.shipped","title":"Shipped","body":"Friday"}"#.utf8))
        #expect(publish.status == 202, "\(publish.text)")
        struct Published: Decodable {
            struct Item: Decodable { var id: String }
            var notifications: [Item]
        }
        let id = try #require(try publish.decode(Published.self).notifications.first?.id)

        let user = [("Authorization", "Bearer \(token)")]
        let page = try await client.request("GET", "/v1/me/notifications", headers: user)
        #expect(page.status == 200, "\(page.text)")
        let items = try #require((try page.json() as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == [id])
        #expect(items.first?["title"] as? String == "Shipped")

        let detail = try await client.request("GET", "/v1/me/notifications/\(id)", headers: user)
        #expect(detail.status == 200, "\(detail.text)")
        let read = try await client.request("POST", "/v1/me/notifications/\(id)/read", headers: user)
        #expect(read.status == 200, "\(read.text)")
        #expect((try read.json() as? [String: Any])?["readAt"] as? String != nil)
        let counts = try await client.request("GET", "/v1/me/counts", headers: user)
        let object = try #require(try counts.json() as? [String: Any])
        #expect(object["unread"] as? Int == 0)
        #expect(object["unseen"] as? Int == 0)
    }

    @Test(
        "migrate applies the schema to PostgreSQL once, then reports it up to date",
        .enabled(if: testPostgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set (make test sets it)"))
    func migratePostgres() async throws {
        let base = try #require(testPostgresURL)
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_cli_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: base)
        try admin.executeUncached("CREATE SCHEMA \(schema)")
        defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
        let url = "\(base)?options=-c%20search_path%3D\(schema)"
        let versions = PostgresStore.migrations.map { String($0.version) }.joined(separator: ", ")
        let first = await CLITests.run(["migrate", "--database", url])
        #expect(first.status == 0)
        #expect(first.out.last == "applied migrations \(versions)")
        let second = await CLITests.run(["migrate"], environment: ["HERALD_DATABASE_URL": url])
        #expect(second.status == 0)
        #expect(second.out.last == "database is up to date")
    }
}

extension PostgresCLITests {
    /// A PostgreSQL setting of `serve`: its flag, its environment twin, what it accepts and its default.
    struct PoolFlag: Sendable, CustomTestStringConvertible {
        var name: String
        var twin: String
        var range: ClosedRange<Int>
        var defaultValue: Int
        var testDescription: String { "--\(name)" }
    }

    @Test(
        "serve refuses a PostgreSQL pool setting (or its environment twin) outside its range before it opens the database, and lists it in its help",
        arguments: [
            PoolFlag(name: "database-pool-size", twin: "HERALD_DATABASE_POOL_SIZE", range: 1...100, defaultValue: 8),
            PoolFlag(
                name: "database-pipeline-depth", twin: "HERALD_DATABASE_PIPELINE_DEPTH", range: 1...64, defaultValue: 16
            ),
        ])
    func poolSettingsValidated(flag: PoolFlag) async {
        let help = await CLITests.run(["serve", "--help"])
        #expect(help.out.joined().contains("--\(flag.name) N"))
        #expect(help.out.joined().contains("[\(flag.twin)] (default \(flag.defaultValue))"))
        for (arguments, environment) in [
            (["serve", "--\(flag.name)", String(flag.range.lowerBound - 1)], [:]),
            (["serve", "--\(flag.name)=\(flag.range.upperBound + 1)"], [:]),
            (["serve", "--\(flag.name)", "eight"], [:]),
            (["serve"], [flag.twin: "0"]),
        ] {
            // An unreachable database: a check made after opening would fail differently.
            let result = await CLITests.run(
                arguments + ["--database", "postgres://herald@127.0.0.1:1/herald"], environment: environment)
            #expect(result.status == 2, "\(arguments) \(environment)")
            #expect(
                result.err.joined().contains(
                    "--\(flag.name) must be a whole number from \(flag.range.lowerBound) to \(flag.range.upperBound)"),
                "\(result.err)")
        }
    }
}

private let testPostgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}
