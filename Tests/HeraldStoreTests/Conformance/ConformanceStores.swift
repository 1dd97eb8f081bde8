import Foundation
import HeraldLog
import HeraldModel
import HeraldThreads
import Testing

@testable import HeraldStore

/// A store the conformance suite runs against: the one implementation (``SQLStore``) on a
/// database, with its migration bookkeeping. A check may shape rows underneath the store with
/// `write`, in SQL both databases take.
protocol MigratedStore: SQLStore {
    static var migrations: [Migration] { get }
    var appliedMigrations: [Int] { get }
    func schemaVersions() throws -> [Int]
}

extension SQLiteStore: MigratedStore {}
extension PostgresStore: MigratedStore {}

/// The throwaway PostgreSQL database of the tests: `make test` starts a cluster and sets
/// `HERALD_TEST_POSTGRES_URL`; without it the PostgreSQL suites are skipped (and say so).
enum PostgresTestDatabase {
    static let url = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Why the PostgreSQL suites are skipped, shown by the test runner.
    static let skipReason: Comment = "HERALD_TEST_POSTGRES_URL is not set (make test starts a cluster and sets it)"

    /// `url` with every connection's `search_path` set to `schema`.
    static func url(_ base: String, schema: String) -> String {
        let separator = base.contains("?") ? "&" : "?"
        return "\(base)\(separator)options=-c%20search_path%3D\(schema)"
    }

    /// Runs `body` with the URL of a new empty schema, dropped afterwards.
    static func withSchema(_ body: (String) async throws -> Void) async throws {
        let base = try #require(url, skipReason)
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await offCooperativePool { try PostgresConnection(url: base).executeUncached("CREATE SCHEMA \(schema)") }
        let drop: @Sendable () throws -> Void = {
            try PostgresConnection(url: base).executeUncached("DROP SCHEMA \(schema) CASCADE")
        }
        do {
            try await body(url(base, schema: schema))
        } catch {
            try? await offCooperativePool(drop)
            throw error
        }
        try await offCooperativePool(drop)
    }

    /// Runs `body` against a fresh store on a new schema.
    static func withStore(_ body: (PostgresStore) async throws -> Void) async throws {
        try await withSchema { url in try await body(open(url)) }
    }

    /// Opens a store (connecting and migrating) off the cooperative pool.
    static func open(_ url: String, logger: Logger = .disabled) async throws -> PostgresStore {
        try await offCooperativePool { try PostgresStore.open(url: url, logger: logger) }
    }
}
