import Foundation
import Testing

@testable import HeraldStore

/// `herald` and a `postgres://` URL while the PostgreSQL store is incomplete (issue 6).
@Suite("herald command line with PostgreSQL")
struct PostgresCLITests {
    @Test("serve refuses a postgres URL, saying what the store lacks, before connecting")
    func serveRefuses() async {
        // Nothing listens on port 1: a connection attempt would fail with another message.
        let result = await CLITests.run(["serve", "--port", "0", "--database", "postgres://herald@127.0.0.1:1/herald"])
        #expect(result.status == 1)
        let message = result.err.joined(separator: "\n")
        #expect(message.contains("the PostgreSQL store cannot serve yet"))
        #expect(message.contains("publishing"))
        #expect(message.contains("herald migrate"))
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

private let testPostgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}
