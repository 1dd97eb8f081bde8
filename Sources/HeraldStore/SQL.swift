import FoundationEssentials

/// A value bound to a statement parameter. The store keeps to types every SQL database has:
/// 64-bit integers, doubles and text (JSON documents are text).
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A Swift value that binds to one statement parameter.
protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Int64: SQLBindable { var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .real(self) } }
/// Booleans are stored as 0 or 1 (INTEGER), which SQLite and PostgreSQL both compare the same way.
extension Bool: SQLBindable { var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
/// Times are stored as INTEGER milliseconds since 1970 (see ``StoreTime``).
extension Date: SQLBindable { var sqlValue: SQLValue { .integer(StoreTime.milliseconds(self)) } }
extension SQLValue: SQLBindable { var sqlValue: SQLValue { self } }

extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue {
        switch self {
        case .none: .null
        case .some(let value): value.sqlValue
        }
    }
}

/// A statement whose values are always bound, never spliced into the text.
///
/// `"SELECT * FROM notifications WHERE id = \(id)"` becomes `... WHERE id = ?` with `id` bound.
/// Raw text must be spelled out as `\(unsafeSQL: "...")`; another `SQL` value interpolates as a
/// fragment, keeping its bindings. The text around the parameters is kept in pieces so the same
/// statement renders as `?` (SQLite) or `$1, $2, ...` (PostgreSQL).
package struct SQL: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The literal text between parameters: `parts.count == values.count + 1`.
    private(set) var parts: [String]
    private(set) var values: [SQLValue]

    package init(stringLiteral value: String) {
        parts = [value]
        values = []
    }

    package init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
        values = stringInterpolation.values
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [String] = [""]
        fileprivate var values: [SQLValue] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            values.reserveCapacity(interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) {
            parts[parts.count - 1] += literal
        }

        /// Binds `value` as a parameter.
        mutating func appendInterpolation(_ value: some SQLBindable) {
            values.append(value.sqlValue)
            parts.append("")
        }

        /// Binds `value`, or NULL when it is `nil`.
        mutating func appendInterpolation<T: SQLBindable>(_ value: T?) {
            values.append(value.sqlValue)
            parts.append("")
        }

        /// Splices raw SQL text. Never pass anything that came from a request.
        mutating func appendInterpolation(unsafeSQL text: String) {
            parts[parts.count - 1] += text
        }

        /// Splices another statement fragment with its bindings.
        package mutating func appendInterpolation(_ fragment: SQL) {
            parts[parts.count - 1] += fragment.parts[0]
            values.append(contentsOf: fragment.values)
            parts.append(contentsOf: fragment.parts.dropFirst())
        }
    }

    /// `WHERE` and every condition joined by `AND`; empty with none.
    static func whereClause(_ conditions: [SQL]) -> SQL {
        var clause: SQL = ""
        for (index, condition) in conditions.enumerated() {
            clause = index == 0 ? "WHERE \(condition)" : "\(clause) AND \(condition)"
        }
        return clause
    }

    /// The statement text for `dialect`, with its placeholders.
    func text(for dialect: SQLDialect) -> String {
        guard !values.isEmpty else { return parts[0] }
        var text = parts[0]
        for index in 1..<parts.count {
            text += dialect.placeholder(index)
            text += parts[index]
        }
        return text
    }

    package var description: String { text(for: .sqlite) }
}

/// The store's one conversion between `Date` and stored time: INTEGER milliseconds since 1970.
enum StoreTime {
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
