import CSQLite

/// An error from a store: a failed SQLite or PostgreSQL call, a bad database URL or a stored
/// value that cannot be read back.
///
/// `description` is safe to log: it holds the result code (or SQLSTATE) and the database's
/// message, never bound values. `debugDescription` adds the SQL text (which holds only `?` or
/// `$n` placeholders).
public struct StoreError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is. New kinds may be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case sqlite
            case invalidDatabaseURL
            case invalidStoredValue
            case encodingFailed
            case postgres
            case unavailable
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// SQLite answered with an error result code (see ``StoreError/resultCode``).
        public static let sqlite = Code(.sqlite)
        /// The database URL is not one the store understands.
        public static let invalidDatabaseURL = Code(.invalidDatabaseURL)
        /// A stored value could not be decoded (corrupt row or JSON column).
        public static let invalidStoredValue = Code(.invalidStoredValue)
        /// A value could not be encoded for storage.
        public static let encodingFailed = Code(.encodingFailed)
        /// PostgreSQL answered with an error (see ``StoreError/sqlState``), or the connection failed.
        public static let postgres = Code(.postgres)
        /// The database cannot be reached: no connection could be made or checked out in time,
        /// or the connection was lost while a statement ran. Worth retrying shortly; a write
        /// that failed this way may or may not have been committed.
        public static let unavailable = Code(.unavailable)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// SQLite's extended result code (e.g. 2067 for a failed UNIQUE constraint) when `code` is `.sqlite`.
    public let resultCode: Int32?
    /// SQLite's message, or the store's own for the other codes.
    public let message: String
    /// The statement that failed, with `?` or `$n` placeholders instead of values.
    public let sql: String?
    /// PostgreSQL's SQLSTATE (e.g. `23505` for a unique violation) when `code` is `.postgres`
    /// and the server answered; `nil` for a connection failure.
    public let sqlState: String?

    init(code: Code, resultCode: Int32? = nil, message: String, sql: String? = nil, sqlState: String? = nil) {
        self.code = code
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, ...) of ``resultCode``.
    public var primaryResultCode: Int32? { resultCode.map { $0 & 0xFF } }

    /// A UNIQUE, NOT NULL, CHECK or foreign key constraint failed.
    public var isConstraintViolation: Bool {
        primaryResultCode == SQLITE_CONSTRAINT || sqlState?.hasPrefix("23") == true
    }

    /// The database could not be reached (see ``Code/unavailable``).
    public var isUnavailable: Bool { code == .unavailable }

    /// The database stayed locked by another connection past the busy timeout.
    public var isBusy: Bool { primaryResultCode == SQLITE_BUSY || primaryResultCode == SQLITE_LOCKED }

    public var description: String {
        if let resultCode {
            return "StoreError(\(code), SQLite \(resultCode)): \(message)"
        }
        if let sqlState {
            return "StoreError(\(code), SQLSTATE \(sqlState)): \(message)"
        }
        return "StoreError(\(code)): \(message)"
    }

    public var debugDescription: String {
        guard let sql else { return description }
        return "\(description) [SQL: \(sql)]"
    }
}

/// The one place SQLite result codes are checked: returns `rc` when it is `SQLITE_OK`,
/// `SQLITE_ROW` or `SQLITE_DONE`, otherwise throws a ``StoreError`` with the code, SQLite's
/// message for `db` and the SQL.
@discardableResult
func sqliteCheck(_ rc: Int32, db: OpaquePointer?, sql: String?) throws(StoreError) -> Int32 {
    switch rc {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
        return rc
    default:
        let message: String
        if let db, let text = sqlite3_errmsg(db) {
            message = String(cString: text)
        } else if let text = sqlite3_errstr(rc) {
            message = String(cString: text)
        } else {
            message = "unknown error"
        }
        let extended = db.map { sqlite3_extended_errcode($0) } ?? rc
        // sqlite3_errmsg can be stale when the failing call did not set it; prefer the returned code.
        let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
        throw StoreError(code: .sqlite, resultCode: code, message: message, sql: sql)
    }
}
