import CPostgres
import Foundation

/// Owns one `PGconn*`; `PQfinish` in `deinit`.
///
/// Not thread-safe: a connection is only ever used by whoever holds its lock (see
/// ``PostgresStore``). Every statement goes through `PQexecParams` with text parameters, so
/// values are never spliced into SQL text.
final class PostgresConnection {
    private let handle: OpaquePointer
    static let dialect = SQLDialect.postgres

    /// Connects to `url` (`postgres://user@host:port/database?options=...`, libpq's URI syntax).
    init(url: String) throws(StoreError) {
        guard let connection = PQconnectdb(url) else {
            throw StoreError(code: .postgres, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            // The URL is not repeated: it may hold a password.
            let message = Self.connectionMessage(connection)
            PQfinish(connection)
            throw StoreError(code: .postgres, message: "could not connect to PostgreSQL: \(message)")
        }
        herald_pq_ignore_notices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// A connection the server dropped is re-established once before the next statement.
    private func reconnectIfBroken() throws(StoreError) {
        guard PQstatus(handle) == CONNECTION_BAD else { return }
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw StoreError(
                code: .postgres, message: "lost the PostgreSQL connection: \(Self.connectionMessage(handle))")
        }
    }

    private static func connectionMessage(_ connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
    }

    // MARK: Statements

    /// Runs a statement, ignoring any rows.
    func execute(_ sql: SQL) throws(StoreError) {
        _ = try run(sql)
    }

    /// Runs `sql` with its values bound as text parameters (`$1`, `$2`, ...).
    func run(_ sql: SQL) throws(StoreError) -> PostgresResult {
        let text = sql.text(for: Self.dialect)
        let parameters = try sql.values.map { value throws(StoreError) in try Self.parameter(value, sql: text) }
        try reconnectIfBroken()
        // libpq copies the parameters before PQexecParams returns.
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { parameter in
            parameter.map { text in
                guard let copy = strdup(text) else { fatalError("out of memory copying a statement parameter") }
                return copy
            }
        }
        defer {
            for copy in copies { free(copy) }
        }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        let result = pointers.withUnsafeBufferPointer { values in
            PQexecParams(handle, text, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
        }
        return try postgresCheck(result, connection: handle, sql: text)
    }

    /// Runs a statement given as plain text (DDL, transaction control), without parameters.
    func executeUncached(_ text: String) throws(StoreError) {
        try execute(SQL(stringLiteral: text))
    }

    /// Runs a statement and maps every row.
    func query<T>(_ sql: SQL, _ map: (PostgresRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        let result = try run(sql)
        var rows: [T] = []
        rows.reserveCapacity(result.rowCount)
        for index in 0..<result.rowCount {
            rows.append(try map(result.row(index)))
        }
        return rows
    }

    /// Runs a statement and maps its first row, if any.
    func queryOne<T>(_ sql: SQL, _ map: (PostgresRow) throws(StoreError) -> T) throws(StoreError) -> T? {
        let result = try run(sql)
        return result.rowCount == 0 ? nil : try map(result.row(0))
    }

    /// The text form of a parameter; `nil` is SQL NULL.
    private static func parameter(_ value: SQLValue, sql: String) throws(StoreError) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
            return String(number)
        case .text(let text):
            // A text parameter ends at its first NUL, and PostgreSQL text cannot hold one.
            guard !text.utf8.contains(0) else {
                throw StoreError(code: .encodingFailed, message: "text with a NUL character cannot be stored", sql: sql)
            }
            return text
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try executeUncached("BEGIN")
        let result: T
        do {
            result = try body()
            try executeUncached("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    private func rollback() {
        // A failed COMMIT already ended the transaction; a lost connection has none left.
        guard PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        do {
            try executeUncached("ROLLBACK")
        } catch {
            // A connection that cannot roll back is reset: the server ends its transaction
            // with the session, and the next statement starts clean.
            PQreset(handle)
        }
    }
}
