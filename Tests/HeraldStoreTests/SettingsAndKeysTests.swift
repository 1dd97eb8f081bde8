import CSQLite
import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Settings and API keys")
struct SettingsAndKeysTests {
    @Test("a setting is nil until set; set-if-absent keeps the first value")
    func settings() async throws {
        try await withStore { (store) async throws in
            #expect(try await store.setting("user_token_secret") == nil)
            #expect(try await store.setSettingIfAbsent("user_token_secret", value: "first") == "first")
            #expect(try await store.setSettingIfAbsent("user_token_secret", value: "second") == "first")
            #expect(try await store.setting("user_token_secret") == "first")
        }
    }

    @Test("racing set-if-absent calls all answer the same stored value")
    func settingRace() async throws {
        try await withStore { (store) async throws in
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.setSettingIfAbsent("secret", value: "v\(index)") }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(answers.count == 1)
            #expect(try await store.setting("secret") == answers.first)
        }
    }

    @Test("API keys are found by hash only")
    func apiKeys() async throws {
        try await withStore { (store) async throws in
            let key = APIKeyRecord(id: "k1", name: "backend", hash: "h-abc", createdAt: at(5))
            try await store.createAPIKey(key)
            #expect(try await store.apiKey(hash: "h-abc") == key)
            #expect(try await store.apiKey(hash: "k1") == nil)
            #expect(try await store.apiKey(hash: "h-other") == nil)
        }
    }

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
            let error = try #require(throws: StoreError.self) {
                try store.read { db in try db.execute("SELECT nope FROM settings WHERE key = \("k")") }
            }
            #expect(error.primaryResultCode == SQLITE_ERROR)
            #expect(error.message.contains("no such column: nope"))
            #expect(error.sql == "SELECT nope FROM settings WHERE key = ?")
        }
    }

    @Test("ping answers")
    func ping() async throws {
        try await withStore { (store) async throws in try await store.ping() }
    }
}
