import Foundation
import Testing

@testable import HeraldStore

@Suite("SQL building")
struct SQLTests {
    @Test("interpolated values are bound, never spliced; unsafeSQL is spliced")
    func binding() {
        let id = "x' OR '1'='1"
        let limit = 20
        let missing: String? = nil
        let sql: SQL =
            "SELECT * FROM t WHERE id = \(id) AND n < \(limit) AND c IS \(missing) ORDER BY \(unsafeSQL: "seq DESC")"
        #expect(sql.text(for: .sqlite) == "SELECT * FROM t WHERE id = ? AND n < ? AND c IS ? ORDER BY seq DESC")
        #expect(sql.text(for: .postgres) == "SELECT * FROM t WHERE id = $1 AND n < $2 AND c IS $3 ORDER BY seq DESC")
        #expect(sql.values == [.text(id), .integer(20), .null])
    }

    @Test("a column is found by name wherever the last lookup left the scan; a missing one is an error naming it")
    func columnLookup() throws {
        let columns = ColumnNames(["id", "user_id", "seq", "list_json"])
        // In select order, out of order, the same twice, and wrapping past the end.
        for (name, index) in [
            ("id", 0), ("user_id", 1), ("seq", 2), ("list_json", 3), ("user_id", 1), ("user_id", 1), ("id", 0),
            ("list_json", 3), ("seq", 2),
        ] {
            #expect(try columns.index(of: name, sql: "SELECT") == index, "\(name)")
        }
        let error = #expect(throws: StoreError.self) { try columns.index(of: "missing", sql: "SELECT x") }
        #expect(error?.code == .invalidStoredValue && error?.message.contains("missing") == true)
        #expect(throws: StoreError.self) { try ColumnNames([]).index(of: "id", sql: "SELECT") }
        #expect(try columns.index(of: "seq", sql: "SELECT") == 2, "a failed lookup leaves the names usable")
    }

    @Test("fragments keep their bindings and numbering")
    func fragments() {
        let filter: SQL = "AND category = \("orders")"
        let sql: SQL = "SELECT 1 WHERE user_id = \("u1") \(filter) AND seq < \(Int64(9))"
        #expect(sql.text(for: .postgres) == "SELECT 1 WHERE user_id = $1 AND category = $2 AND seq < $3")
        #expect(sql.values == [.text("u1"), .text("orders"), .integer(9)])
    }

    @Test("dates bind as milliseconds since 1970 and booleans as 0 or 1")
    func valueMapping() {
        let sql: SQL = "\(Date(timeIntervalSince1970: 1.5)) \(true) \(false)"
        #expect(sql.values == [.integer(1_500), .integer(1), .integer(0)])
    }

    @Test("text binds with its byte length: empty strings, NUL bytes and non-ASCII round-trip")
    func textRoundTrip() async throws {
        try await withStore { (store) async throws in
            for value in ["", "a\u{0}b", "Zoë 🚚 ✓", String(repeating: "x", count: 100_000)] {
                let back = try await store.read { db in
                    try db.queryOne("SELECT \(value) AS back") { row throws(StoreError) in try row.text("back") }
                }
                #expect(back == value)
                let isNull = try await store.read { db in
                    try db.queryOne("SELECT \(value) IS NULL AS absent") { row throws(StoreError) in
                        try row.bool("absent")
                    }
                }
                #expect(isNull == false)
            }
            let big = try await store.read { db in
                try db.queryOne("SELECT \(Int64.max) AS big") { row throws(StoreError) in try row.int64("big") }
            }
            #expect(big == Int64.max)
        }
    }
}

@Suite("Statement preparation")
struct StatementPreparationTests {
    @Test("a SQL text holding a second statement is refused instead of half run")
    func secondStatementRefused() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(throws: StoreError.self) {
            try connection.executeUncached("CREATE TABLE a (x); CREATE TABLE b (y)")
        }
        try connection.executeUncached("CREATE TABLE c (z);  \n")
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            row throws(StoreError) in try row.text("name")
        }
        #expect(tables == ["c"])
    }
}
