import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

@Suite("Opening and migrations")
struct MigrationTests {
    @Test("migrations are recorded at open and re-opening applies nothing")
    func recordedAndIdempotent() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("herald.db").path
        let allVersions = SQLiteStore.migrations.map(\.version)
        #expect(allVersions == allVersions.sorted())
        #expect(Set(allVersions).count == allVersions.count)

        do {
            let store = try SQLiteStore(path: path)
            #expect(store.appliedMigrations == allVersions)
            #expect(try store.schemaVersions() == allVersions)
            #expect(try store.migrate() == allVersions)  // what this instance applied, at open
            try await publish(store, ids: ["kept"])
        }
        let reopened = try SQLiteStore(path: path)
        #expect(reopened.appliedMigrations == [])
        #expect(try reopened.migrate() == [])
        #expect(try reopened.schemaVersions() == allVersions)
        #expect(try await reopened.notification(userID: "u1", id: "kept") != nil)
        let names = try await reopened.read { db in
            try db.query("SELECT name FROM schema_migrations ORDER BY version") { row throws(StoreError) in
                try row.text("name")
            }
        }
        #expect(names == SQLiteStore.migrations.map(\.name))
    }

    @Test("opening a path that cannot be a database throws with the path and SQLite's code")
    func openFailure() throws {
        let error = try #require(throws: StoreError.self) {
            try SQLiteStore(path: "/nonexistent-directory-\(UUID().uuidString)/herald.db")
        }
        #expect(error.code == .sqlite)
        #expect(error.primaryResultCode == 14)  // SQLITE_CANTOPEN
        #expect(error.message.contains("nonexistent-directory"))
    }

    @Test("the file database runs in WAL mode with foreign keys on")
    func pragmas() async throws {
        try await withStore { (store) async throws in
            let mode = try await store.write { db in
                try db.queryOne("PRAGMA journal_mode") { row throws(StoreError) in try row.text("journal_mode") }
            }
            #expect(mode == "wal")
            let foreignKeys = try await store.read { db in
                try db.queryOne("PRAGMA foreign_keys") { row throws(StoreError) in try row.int("foreign_keys") }
            }
            #expect(foreignKeys == 1)
            let synchronous = try await store.read { db in
                try db.queryOne("PRAGMA synchronous") { row throws(StoreError) in try row.int("synchronous") }
            }
            #expect(synchronous == 1)  // NORMAL
        }
    }

    @Test("reader connections refuse writes")
    func readersAreReadOnly() async throws {
        try await withStore { (store) async throws in
            await #expect(throws: StoreError.self) {
                try await store.read { db in try db.execute("INSERT INTO settings (key, value) VALUES (\("k"), \("v"))")
                }
            }
        }
    }

    @Test("database URLs: sqlite:relative, sqlite:///absolute and sqlite::memory:; anything else is refused")
    func databaseURLs() throws {
        #expect(try SQLiteStore.path(fromURL: "sqlite:./herald.db") == "./herald.db")
        #expect(try SQLiteStore.path(fromURL: "sqlite:herald.db") == "herald.db")
        #expect(try SQLiteStore.path(fromURL: "sqlite:///var/lib/herald/herald.db") == "/var/lib/herald/herald.db")
        #expect(try SQLiteStore.path(fromURL: "sqlite::memory:") == ":memory:")
        for bad in ["postgres://localhost/herald", "sqlite:", "sqlite://host/db", "herald.db", "", "sqlite:///tmp/"] {
            let error = try #require(throws: StoreError.self) { try SQLiteStore.path(fromURL: bad) }
            #expect(error.code == .invalidDatabaseURL, "\(bad)")
            #expect(error.description.contains("sqlite:./herald.db"))
        }
    }

    @Test("open(url:) opens a file database and an in-memory one")
    func openURL() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore.open(url: "sqlite://" + directory.appendingPathComponent("x.db").path)
        #expect(store.appliedMigrations == SQLiteStore.migrations.map(\.version))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.db").path))

        let memory = try SQLiteStore.open(url: "sqlite::memory:")
        try await publish(memory, ids: ["n1", "n2"])
        #expect(try await memory.inboxPage(userID: "u1", category: nil, beforeSeq: nil, limit: 20).items.count == 2)
        #expect(try await memory.counts(userID: "u1") == counts(2, 2))
    }

    @Test(":memory: works with the default reader count because one connection serves everything")
    func inMemory() async throws {
        let store = try SQLiteStore(path: ":memory:")
        _ = try await store.setSettingIfAbsent("a", value: "1")
        #expect(try await store.setting("a") == "1")
        // Two stores never share an in-memory database.
        #expect(try await SQLiteStore(path: ":memory:").setting("a") == nil)
    }

    @Test("concurrent readers and the writer interleave without errors")
    func concurrentAccess() async throws {
        try await withStore(readers: 4) { (store) async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<25 {
                            _ = try await store.publish(
                                [note("w\(writer)-\(index)", user: "u\(writer)")], catalog: .standard, idempotency: nil)
                        }
                    }
                }
                for reader in 0..<8 {
                    group.addTask {
                        for _ in 0..<50 {
                            let page = try await store.inboxPage(
                                userID: "u\(reader % 4)", category: nil, beforeSeq: nil, limit: 20)
                            // Rows and counters are written together, and a read sees one snapshot.
                            #expect(page.counts.unread >= page.items.count)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for user in 0..<4 {
                #expect(try await store.counts(userID: "u\(user)") == counts(25, 25))
            }
        }
    }
}
