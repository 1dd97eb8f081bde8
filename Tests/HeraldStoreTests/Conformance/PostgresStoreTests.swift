import Foundation
import HeraldModel
import HeraldThreads
import Testing

@testable import HeraldStore

/// What only the PostgreSQL store has: libpq errors, the migration lock, reconnecting.
@Suite(
    "PostgreSQL store", .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresStoreTests {
    @Test("re-opening applies nothing and keeps the data")
    func reopenIsIdempotent() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let allVersions = PostgresStore.migrations.map(\.version)
            do {
                let store = try await PostgresTestDatabase.open(url)
                #expect(store.appliedMigrations == allVersions)
                #expect(try store.migrate() == allVersions)  // what this instance applied, at open
                try await store.createAPIKey(APIKeyRecord(id: "k1", name: "a", hash: "h", createdAt: t0))
            }
            let reopened = try await PostgresTestDatabase.open(url)
            #expect(reopened.appliedMigrations == [])
            #expect(try reopened.migrate() == [])
            #expect(try reopened.schemaVersions() == allVersions)
            #expect(try await reopened.apiKey(hash: "h")?.id == "k1")
        }
    }

    @Test("stores opening at once on an empty schema apply each migration exactly once")
    func concurrentOpenMigratesOnce() async throws {
        try await PostgresTestDatabase.withSchema { url in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await PostgresTestDatabase.open(url).appliedMigrations }
                }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            let allVersions = PostgresStore.migrations.map(\.version)
            #expect(applied.flatMap { $0 }.sorted() == allVersions)
            #expect(applied.filter(\.isEmpty).count == 3)
        }
    }

    @Test("errors carry the SQLSTATE, the primary message and the SQL with $n placeholders, never the values")
    func errorsCarrySQLState() async throws {
        try await PostgresTestDatabase.withStore { store in
            try await store.createAPIKey(APIKeyRecord(id: "k1", name: "a", hash: "secret-hash", createdAt: t0))
            let error = try await #require(throws: StoreError.self) {
                try await store.createAPIKey(APIKeyRecord(id: "k2", name: "b", hash: "secret-hash", createdAt: t0))
            }
            #expect(error.code == .postgres)
            #expect(error.sqlState == "23505")  // unique_violation
            #expect(error.resultCode == nil)
            #expect(error.message.contains("api_keys_key_hash_key"))
            #expect(error.sql?.contains("VALUES ($1, $2, $3, $4)") == true)
            #expect(!error.debugDescription.contains("secret-hash"))
            #expect(error.description.contains("SQLSTATE 23505"))

            let syntax = try await #require(throws: StoreError.self) {
                try await store.read { db in try db.execute("SELECT nope FROM settings WHERE key = \("k")") }
            }
            #expect(syntax.sqlState == "42703")  // undefined_column
            #expect(syntax.sql == "SELECT nope FROM settings WHERE key = $1")
        }
    }

    @Test("rows decode NULLs, 64-bit integers and text exactly; text with a NUL is refused")
    func typedDecoding() async throws {
        try await PostgresTestDatabase.withStore { store in
            let row = try await store.read { db in
                try db.queryOne(
                    """
                    SELECT \(Int64.max)::bigint AS largest, \(Int64.min)::bigint AS smallest,
                        \(Optional<String>.none)::text AS absent, \("ünï ☃ '\\") AS word
                    """
                ) { row throws(StoreError) in
                    (
                        try row.int64("largest"), try row.int64("smallest"), try row.optionalText("absent"),
                        try row.text("word")
                    )
                }
            }
            #expect(row?.0 == Int64.max)
            #expect(row?.1 == Int64.min)
            #expect(row?.2 == nil)
            #expect(row?.3 == "ünï ☃ '\\")
            let notNumber = try await #require(throws: StoreError.self) {
                try await store.read { db in
                    try db.queryOne("SELECT 'x' AS word") { row throws(StoreError) in try row.int64("word") }
                }
            }
            #expect(notNumber.code == .invalidStoredValue)
            let nul = try await #require(throws: StoreError.self) {
                try await store.setSettingIfAbsent("k", value: "a\u{0}b")
            }
            #expect(nul.code == .encodingFailed)
            #expect(try await store.setting("k") == nil)
        }
    }

    @Test("a statement is prepared once per session and run with new values; past the cap, statements still run")
    func statementsArePreparedOnce() async throws {
        try await PostgresTestDatabase.withStore { store in
            let prepared: SQL =
                "SELECT count(*) AS prepared FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::bigint + %'"
            let (sums, count) = try await store.read { db in
                let sums = try (1...3).map { value throws(StoreError) in
                    try db.queryOne("SELECT \(Int64(value))::bigint + 40 AS sum") { row throws(StoreError) in
                        try row.int64("sum")
                    }
                }
                let count = try db.queryOne(prepared) { row throws(StoreError) in try row.int64("prepared") }
                return (sums, count)
            }
            #expect(sums == [41, 42, 43])
            #expect(count == 1, "one prepared statement served the three runs")

            let total = try await store.read { db in
                var total: Int64 = 0
                for offset in 0..<(PostgresConnection.maxPreparedStatements + 20) {
                    let sql = SQL(stringLiteral: "SELECT 1 + \(offset) AS sum")
                    total += try db.queryOne(sql) { row throws(StoreError) in try row.int64("sum") } ?? 0
                }
                let held = try db.queryOne("SELECT count(*) AS held FROM pg_prepared_statements") {
                    row throws(StoreError) in try row.int64("held")
                }
                #expect(held == Int64(PostgresConnection.maxPreparedStatements))
                return total
            }
            let runs = Int64(PostgresConnection.maxPreparedStatements + 20)
            #expect(total == runs + runs * (runs - 1) / 2)
        }
    }

    @Test("a transaction whose body throws leaves nothing behind")
    func transactionRollsBack() async throws {
        struct Refused: Error {}
        try await PostgresTestDatabase.withStore { store in
            await #expect(throws: Refused.self) {
                try await store.write { db in
                    try db.execute("INSERT INTO settings (key, value) VALUES (\("k"), \("v"))")
                    throw Refused()
                }
            }
            #expect(try await store.setting("k") == nil)
            _ = try await store.setSettingIfAbsent("k", value: "kept")
            #expect(try await store.setting("k") == "kept")
        }
    }

    @Test("a connection the server ended is replaced: the next call succeeds on a new session")
    func reconnects() async throws {
        try await PostgresTestDatabase.withStore { store in
            let pid = try #require(
                try await store.read { db in
                    try db.queryOne("SELECT pg_backend_pid() AS pid") { row throws(StoreError) in try row.int("pid") }
                })
            let base = try #require(PostgresTestDatabase.url)
            try await offCooperativePool {
                try PostgresConnection(url: base).execute("SELECT pg_terminate_backend(\(pid))")
            }
            // Seen closed before use, or lost under this read, which then runs once more.
            try await store.ping()
            let newPID = try await store.read { db in
                try db.queryOne("SELECT pg_backend_pid() AS pid") { row throws(StoreError) in try row.int("pid") }
            }
            #expect(newPID != pid)
        }
    }
}

/// Opening needs no server.
@Suite("PostgreSQL store: opening")
struct PostgresOpenTests {
    @Test("a URL of another scheme or an unreachable server throws a clear error without the password")
    func openFailures() throws {
        let scheme = try #require(throws: StoreError.self) { try PostgresStore.open(url: "mysql://x") }
        #expect(scheme.code == .invalidDatabaseURL)
        // Port 1 on loopback: nothing listens there.
        let unreachable = try #require(throws: StoreError.self) {
            try PostgresStore.open(url: "postgres://herald:sekrit@127.0.0.1:1/herald?connect_timeout=2")
        }
        #expect(unreachable.code == .unavailable)
        #expect(unreachable.message.contains("could not connect to PostgreSQL"))
        #expect(!unreachable.description.contains("sekrit"))
    }
}
