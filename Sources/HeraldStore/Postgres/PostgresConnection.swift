import CPostgres
import FoundationEssentials
import HeraldModel

#if canImport(Glibc)
    import Glibc
#endif

/// Owns one `PGconn*`; `PQfinish` in `deinit`.
///
/// Not thread-safe: a connection is only ever used from its own serial queue (see
/// ``ConnectionQueue``). Every statement is prepared once per session
/// (`PQprepare`) and then run with text parameters (`PQexecPrepared`), so values are never
/// spliced into SQL text and PostgreSQL plans each statement once. A connection that was lost
/// stays lost: it is never reset under a running transaction, its queue replaces it between
/// calls.
package final class PostgresConnection {
    private let handle: OpaquePointer
    package static let dialect = SQLDialect.postgres
    /// Statements sent so far, so a caller can tell whether a failure came on the first one.
    package private(set) var statementsSent = 0
    /// Set when a failed transaction could not be rolled back: the session must not be reused.
    private var abandoned = false
    /// The names of the statements prepared on this session, by SQL text.
    private var prepared: [String: String] = [:]
    /// Where committed changes go (the store's feed).
    var feed: ChangeFeed?
    /// What the transaction in progress announced.
    var pendingChanges = PendingChanges()
    /// What the transaction in progress read of the webhook subscriptions.
    package var webhookSubscriptions = WebhookSubscriptionCache()
    /// Statements prepared per session at most; beyond, statements are planned at each run.
    static let maxPreparedStatements = 256

    /// Connects to `url` (`postgres://user@host:port/database?options=...`, libpq's URI
    /// syntax), giving up after `connectTimeoutSeconds` unless the URL sets `connect_timeout`.
    /// TCP keepalives notice a server that vanished without closing the connection.
    init(url: String, connectTimeoutSeconds: Int = 5) throws(StoreError) {
        // Later keywords win, so the URL (expanded from `dbname`) overrides these defaults.
        let parameters = [
            ("connect_timeout", String(connectTimeoutSeconds)), ("keepalives", "1"), ("keepalives_idle", "10"),
            ("keepalives_interval", "5"), ("keepalives_count", "3"), ("dbname", url),
        ]
        guard let connection = try LibPQ.connect(parameters) else {
            throw StoreError(code: .postgres, message: "libpq could not allocate a connection")
        }
        let pq = libpq
        guard pq.PQstatus(connection) == CONNECTION_OK else {
            // The URL is not repeated: it may hold a password.
            let message = Self.connectionMessage(connection)
            pq.PQfinish(connection)
            throw StoreError(code: .unavailable, message: "could not connect to PostgreSQL: \(message)")
        }
        LibPQ.ignoreNotices(connection)
        handle = connection
    }

    deinit { libpq.PQfinish(handle) }

    /// Whether the next call may use this session: it is open as far as can be told without a
    /// round trip (a server that shut down or ended the session has closed the socket, which
    /// reading what arrived meanwhile notices), outside any transaction, and not abandoned.
    package var isReusable: Bool {
        let pq = libpq
        guard !abandoned, pq.PQstatus(handle) == CONNECTION_OK, pq.PQtransactionStatus(handle) == PQTRANS_IDLE else {
            return false
        }
        // libpq's socket is non-blocking: this never waits for the server.
        return pq.PQconsumeInput(handle) == 1 && pq.PQstatus(handle) == CONNECTION_OK
    }

    private static func connectionMessage(_ connection: OpaquePointer) -> String {
        libpq.PQerrorMessage(connection).map { String(cString: $0) }?
            .trimmingWhitespace() ?? "unknown error"
    }

    // MARK: Statements

    /// Runs a statement, ignoring any rows.
    package func execute(_ sql: SQL) throws(StoreError) {
        _ = try run(sql)
    }

    /// Runs `sql` with its values bound as text parameters (`$1`, `$2`, ...), prepared on this
    /// session the first time unless `prepares` is false.
    func run(_ sql: SQL, prepares: Bool = true) throws(StoreError) -> PostgresResult {
        let statement = try BoundStatement(sql, on: self, prepares: prepares)
        statementsSent += 1
        let pq = libpq
        let result = statement.withValues { name, values in
            if let name {
                pq.PQexecPrepared(handle, name, Int32(values.count), values.baseAddress, nil, nil, 0)
            } else {
                pq.PQexecParams(handle, statement.text, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
            }
        }
        return try postgresCheck(result, connection: handle, sql: statement.text)
    }

    /// Runs `statements`, each of which only reads, in libpq's pipeline mode: all of them sent,
    /// then one sync, then their results read in order, so they cost one round trip (and one
    /// wake-up of this connection's thread and of its server process) instead of one each. Each
    /// answers its own result or error: after a failed statement the server skips the rest of
    /// the pipeline, and those go in another, until every statement has its answer.
    ///
    /// Throws, with none answered, when the session is lost (or cannot pipeline): the caller runs
    /// them all again on a new session or fails them all. All the statements are written before
    /// any result is read, on a blocking connection; that cannot deadlock, since libpq reads and
    /// keeps what the server sends whenever a write would block.
    func pipeline(_ statements: [SQL]) throws(StoreError) -> [Result<PostgresResult, StoreError>] {
        var results = [Result<PostgresResult, StoreError>?](repeating: nil, count: statements.count)
        var unanswered: [(index: Int, statement: BoundStatement)] = []
        for (index, sql) in statements.enumerated() {
            do {
                // Preparing waits for its answer, so it happens before the pipeline starts.
                unanswered.append((index, try BoundStatement(sql, on: self, prepares: true)))
            } catch {
                if error.isUnavailable { throw error }
                results[index] = .failure(error)
            }
        }
        while !unanswered.isEmpty {
            let skipped = try pipelineRound(unanswered, answering: &results)
            // The first statement of a round is never skipped (only those after an error are).
            guard skipped.count < unanswered.count else { throw lost("a pipeline answered none of its statements") }
            unanswered = skipped
        }
        return results.map { result in
            guard let result else { preconditionFailure("a pipelined statement was left without an answer") }
            return result
        }
    }

    /// Sends `statements` in one pipeline and records each answer in `results`; answers those the
    /// server skipped after an error.
    private func pipelineRound(
        _ statements: [(index: Int, statement: BoundStatement)],
        answering results: inout [Result<PostgresResult, StoreError>?]
    ) throws(StoreError) -> [(index: Int, statement: BoundStatement)] {
        let pq = libpq
        guard pq.PQenterPipelineMode(handle) == 1 else { throw lost("could not enter pipeline mode") }
        for (_, statement) in statements {
            let sent = statement.withValues { name, values in
                if let name {
                    pq.PQsendQueryPrepared(handle, name, Int32(values.count), values.baseAddress, nil, nil, 0)
                } else {
                    pq.PQsendQueryParams(
                        handle, statement.text, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
                }
            }
            guard sent == 1 else { throw lost("could not send a pipelined statement") }
        }
        statementsSent += statements.count
        guard pq.PQpipelineSync(handle) == 1 else { throw lost("could not end a pipeline") }
        var skipped: [(index: Int, statement: BoundStatement)] = []
        for (index, statement) in statements {
            let result = pq.PQgetResult(handle)
            if let result, pq.PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                pq.PQclear(result)
                skipped.append((index, statement))
            } else {
                do {
                    results[index] = .success(try postgresCheck(result, connection: handle, sql: statement.text))
                } catch {
                    if error.isUnavailable { throw lost(error) }
                    results[index] = .failure(error)
                }
            }
            // Each statement's results end with a NULL.
            if let extra = pq.PQgetResult(handle) {
                pq.PQclear(extra)
                throw lost("a pipelined statement answered more than one result")
            }
        }
        let sync = pq.PQgetResult(handle)
        defer { sync.map(pq.PQclear) }
        guard let sync, pq.PQresultStatus(sync) == PGRES_PIPELINE_SYNC, pq.PQexitPipelineMode(handle) == 1
        else { throw lost("a pipeline did not end with its sync") }
        return skipped
    }

    /// A session that failed mid-pipeline is not reused: its state is unknown.
    private func lost(_ error: StoreError) -> StoreError {
        abandoned = true
        return error
    }

    private func lost(_ reason: String) -> StoreError {
        let message = libpq.PQerrorMessage(handle).map { String(cString: $0) }?.trimmingWhitespace() ?? ""
        return lost(StoreError(code: .unavailable, message: message.isEmpty ? reason : "\(reason): \(message)"))
    }

    /// A statement ready to send: its text, its prepared name (nil to send the text itself)
    /// and its parameters as C strings, which libpq copies before a send returns.
    private final class BoundStatement {
        let text: String
        let name: String?
        private let copies: [UnsafeMutablePointer<CChar>?]

        init(_ sql: SQL, on connection: PostgresConnection, prepares: Bool) throws(StoreError) {
            text = sql.text(for: PostgresConnection.dialect)
            let sqlText = text
            let parameters = try sql.values.map { value throws(StoreError) in
                try PostgresConnection.parameter(value, sql: sqlText)
            }
            name = prepares ? try connection.preparedName(text, parameterCount: Int32(parameters.count)) : nil
            copies = parameters.map { parameter in parameter.map(LibPQ.copy) }
        }

        deinit {
            for copy in copies { free(copy) }
        }

        func withValues<R>(_ body: (String?, UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
            copies.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { values in body(name, values) }
        }
    }

    /// The name `text` is prepared under on this session, preparing it now the first time; nil
    /// once the session holds ``maxPreparedStatements``.
    private func preparedName(_ text: String, parameterCount: Int32) throws(StoreError) -> String? {
        if let name = prepared[text] { return name }
        guard prepared.count < Self.maxPreparedStatements else { return nil }
        let name = "herald_\(prepared.count + 1)"
        _ = try postgresCheck(libpq.PQprepare(handle, name, text, parameterCount, nil), connection: handle, sql: text)
        prepared[text] = name
        return name
    }

    /// Runs a statement given as plain text (DDL, transaction control), without parameters and
    /// without preparing it.
    package func executeUncached(_ text: String) throws(StoreError) {
        _ = try run(SQL(stringLiteral: text), prepares: false)
    }

    /// Runs a statement and maps every row (the result knows its row count: `capacity` is not needed).
    package func query<T>(_ sql: SQL, capacity _: Int, _ map: (PostgresRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        try run(sql).rows(map)
    }

    /// Runs a statement and maps its first row, if any.
    package func queryOne<T>(_ sql: SQL, _ map: (PostgresRow) throws(StoreError) -> T) throws(StoreError) -> T? {
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
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN", body)
    }

    /// Runs `body` in a transaction that `begin` starts (with its isolation level and mode).
    func transaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try executeUncached(begin)
        pendingChanges.begin()
        webhookSubscriptions = WebhookSubscriptionCache()
        let result: T
        do {
            result = try body()
            try executeUncached("COMMIT")
        } catch {
            pendingChanges.rollback()
            rollback()
            throw error
        }
        pendingChanges.commit(to: feed)
        return result
    }

    private func rollback() {
        // A failed COMMIT already ended the transaction; a lost connection has none left.
        guard libpq.PQtransactionStatus(handle) != PQTRANS_IDLE, libpq.PQstatus(handle) == CONNECTION_OK else { return }
        do {
            try executeUncached("ROLLBACK")
        } catch {
            // A session that cannot roll back is given up: the server ends its transaction with
            // the session, and the queue opens a new one for the next call.
            abandoned = true
        }
    }
}
