import CSQLite
import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

/// SQLite's own error reporting: what a ``StoreError`` carries from a failed SQLite call.
@Suite("SQLite errors")
struct SQLiteErrorTests {
    @Test("errors carry the result code, SQLite's message and the SQL, never the values")
    func errorsCarrySQLAndCode() async throws {
        try await withStore { (store) async throws in
            try await store.createAPIKey(APIKeyRecord(id: "k1", name: "a", hash: "secret-hash", createdAt: t0))
            let error = try await #require(throws: StoreError.self) {
                try await store.createAPIKey(APIKeyRecord(id: "k2", name: "b", hash: "secret-hash", createdAt: t0))
            }
            #expect(error.code == .sqlite)
            #expect(error.resultCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.primaryResultCode == SQLITE_CONSTRAINT)
            #expect(error.isConstraintViolation)
            #expect(error.message.contains("UNIQUE constraint failed: api_keys.key_hash"))
            let sql = try #require(error.sql)
            #expect(sql.contains("INSERT INTO api_keys"))
            #expect(sql.contains("?"))
            #expect(!sql.contains("secret-hash"))
            #expect(!error.description.contains("secret-hash"))
            #expect(error.debugDescription.contains("INSERT INTO api_keys"))
        }
    }

    @Test("a statement SQLite cannot prepare throws with its SQL")
    func prepareError() async throws {
        try await withStore { (store) async throws in
            let error = try await #require(throws: StoreError.self) {
                try await store.read { db in try db.execute("SELECT nope FROM settings WHERE key = \("k")") }
            }
            #expect(error.primaryResultCode == SQLITE_ERROR)
            #expect(error.message.contains("no such column: nope"))
            #expect(error.sql == "SELECT nope FROM settings WHERE key = ?")
        }
    }
}
