import CPostgres
import FoundationEssentials
import HeraldModel

/// The one place libpq result statuses are checked: returns the result when the statement
/// succeeded, otherwise frees it and throws a ``StoreError`` with the SQLSTATE, PostgreSQL's
/// primary message (never the DETAIL, which can quote row values) and the SQL.
///
/// A failure that means the server cannot be reached (the connection is gone, or the server
/// is shutting down or starting up) is ``StoreError/Code/unavailable``; any other is
/// ``StoreError/Code/postgres``.
func postgresCheck(_ result: OpaquePointer?, connection: OpaquePointer, sql: String) throws(StoreError)
    -> PostgresResult
{
    let pq = libpq
    guard let result else {
        // No result at all: out of memory or the connection is gone.
        let message = pq.PQerrorMessage(connection).map { String(cString: $0) } ?? "no result"
        throw StoreError(
            code: pq.PQstatus(connection) == CONNECTION_BAD ? .unavailable : .postgres,
            message: message.trimmingWhitespace(), sql: sql)
    }
    switch pq.PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
        return PostgresResult(handle: result, sql: sql)
    default:
        let sqlState = pq.PQresultErrorField(result, Int32(HERALD_PG_DIAG_SQLSTATE)).map { String(cString: $0) }
        let message =
            pq.PQresultErrorField(result, Int32(HERALD_PG_DIAG_MESSAGE_PRIMARY)).map { String(cString: $0) }
            ?? pq.PQresultErrorMessage(result).map { String(cString: $0) } ?? "unknown error"
        pq.PQclear(result)
        let lost = pq.PQstatus(connection) == CONNECTION_BAD || sqlState.map(isUnreachableState) == true
        throw StoreError(
            code: lost ? .unavailable : .postgres, message: message.trimmingWhitespace(),
            sql: sql, sqlState: sqlState)
    }
}

/// SQLSTATEs that say the server cannot serve this session: class 08 (connection exception),
/// 57P01 to 57P03 (shut down by an administrator, after a crash, or starting up).
private func isUnreachableState(_ sqlState: String) -> Bool {
    sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
}

/// Owns one `PGresult*`; `PQclear` in `deinit`.
final class PostgresResult {
    private let handle: OpaquePointer
    let sql: String
    /// The result's column names, read once (rows are read by name).
    fileprivate private(set) lazy var columnNames = ColumnNames(
        (0..<libpq.PQnfields(handle)).map { index in libpq.PQfname(handle, index).map { String(cString: $0) } ?? "" })

    fileprivate init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit { libpq.PQclear(handle) }

    var rowCount: Int { Int(libpq.PQntuples(handle)) }

    /// Rows changed by an INSERT, UPDATE or DELETE (0 for other statements).
    var changes: Int { libpq.PQcmdTuples(handle).flatMap { Int(String(cString: $0)) } ?? 0 }

    /// Row `index`; valid while this result lives.
    func row(_ index: Int) -> PostgresRow { PostgresRow(result: self, index: Int32(index)) }

    /// Every row, mapped in order.
    func rows<T>(_ map: (PostgresRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        var rows: [T] = []
        rows.reserveCapacity(rowCount)
        for index in 0..<rowCount {
            rows.append(try map(row(index)))
        }
        return rows
    }

    fileprivate func isNull(_ row: Int32, _ column: Int) -> Bool {
        libpq.PQgetisnull(handle, row, Int32(column)) != 0
    }

    fileprivate func text(_ row: Int32, _ column: Int) -> String {
        guard let bytes = libpq.PQgetvalue(handle, row, Int32(column)) else { return "" }
        return String(cString: bytes)
    }
}

/// One row of a result, decoded from libpq's text format.
package struct PostgresRow: StoreRow {
    fileprivate let result: PostgresResult
    fileprivate let index: Int32

    package var sql: String { result.sql }

    package func column(_ name: String) throws(StoreError) -> Int {
        try result.columnNames.index(of: name, sql: sql)
    }

    package func isNull(at column: Int) -> Bool { result.isNull(index, column) }

    package func text(at column: Int) -> String { result.text(index, column) }

    package func int64(at column: Int) throws(StoreError) -> Int64 {
        guard let number = Int64(text(at: column)) else {
            throw StoreError(code: .invalidStoredValue, message: "column \(column) is not a 64-bit integer", sql: sql)
        }
        return number
    }
}
