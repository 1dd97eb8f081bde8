import Foundation
import HeraldTestSupport
import Testing

@testable import HeraldStore

/// The databases a server test runs on: SQLite, and PostgreSQL when the test cluster is there.
enum ServerDatabase: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue == "sqlite" ? "SQLite" : "PostgreSQL" }

    static let postgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// SQLite, and PostgreSQL when `HERALD_TEST_POSTGRES_URL` is set.
    static let available: [ServerDatabase] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    /// Runs `body` with a database URL of its own: a SQLite file, or a new PostgreSQL schema
    /// dropped afterwards.
    func withURL(_ body: (String) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("herald-server-db").url
        defer { try? FileManager.default.removeItem(at: directory) }
        guard self == .postgres, let base = Self.postgresURL else {
            return try await body("sqlite:" + directory.appendingPathComponent("herald.db").path)
        }
        // Made here, never from input: a fixed prefix and hex digits.
        let schema = "herald_server_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(url: base)
        try admin.executeUncached("CREATE SCHEMA \(schema)")
        defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
        try await body("\(base)?options=-c%20search_path%3D\(schema)")
    }
}
