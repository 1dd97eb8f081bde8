import FoundationEssentials
import HeraldModel

/// A small JSON writer for the hot paths: the inbox page the server answers most, and the rows
/// and live events the store writes per recipient when publishing.
///
/// Foundation's `JSONEncoder` spends most of its time in generic container machinery there.
/// This writes the same documents: the same keys, `null` for unset optionals, strings escaped
/// as RFC 8259 requires (nothing else escaped), and times as RFC 3339 UTC with whole seconds,
/// like `JSONEncoder`'s `.iso8601`. Tests decode both outputs and compare them.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The written document as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Writes with a fresh writer and answers the text.
    public static func text(capacity: Int = 256, _ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        return writer.text
    }

    // MARK: Values

    /// Bytes that are already JSON (punctuation, keys, a stored JSON fragment).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    public mutating func int(_ value: some BinaryInteger) {
        raw(String(value))
    }

    /// A number as Swift spells it shortest (`0.5`, `1.0`, `1e-05`: all JSON); `null` for a value
    /// JSON cannot hold (infinity, NaN), which validation keeps out.
    public mutating func double(_ value: Double) {
        if value.isFinite { raw(String(value)) } else { raw("null") }
    }

    /// A JSON string with the escapes RFC 8259 requires, written in runs.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var clean = 0  // start of the run of bytes that need no escape
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<index]))
                escape(byte)
                clean = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    /// `"YYYY-MM-DDTHH:MM:SSZ"` in UTC, fractional seconds dropped.
    public mutating func date(_ value: Date) {
        let seconds = Int64(value.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        bytes.append(UInt8(ascii: "\""))
        digits(year, count: 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, count: 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, count: 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, count: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 3600 / 60, count: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, count: 2)
        raw("Z\"")
    }

    public mutating func optionalDate(_ value: Date?) {
        if let value { date(value) } else { raw("null") }
    }

    /// `value` as JSON, keys sorted; a whole number within 2^53 without a fraction (`3`, not
    /// `3.0`), so an `Int` of an app's `Codable` type decodes it.
    public mutating func json(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): bool(flag)
        case .string(let text): string(text)
        case .number(let number):
            if number.rounded() == number, abs(number) <= 9_007_199_254_740_992 {
                int(Int64(number))
            } else {
                double(number)
            }
        case .array(let items):
            _ = array(items) { writer, item in
                writer.json(item)
                return true
            }
        case .object(let members):
            _ = object(members) { writer, member in
                writer.json(member)
                return true
            }
        }
    }

    /// Swift values as JSON, keys sorted: strings, booleans, integers of any width (every digit),
    /// floating-point numbers, arrays, string-keyed dictionaries and ``JSONValue``s, as
    /// `JSONValue.object` reads them. False, having written part of it, for anything else: the
    /// caller discards the writer.
    public mutating func any(_ value: Any) -> Bool {
        switch value {
        case let value as JSONValue: json(value)
        case let value as String: string(value)
        case let value as Bool: bool(value)
        case let value as any BinaryInteger: int(value)
        case let value as any BinaryFloatingPoint: double(Double(value))
        case let items as [Any]: return array(items) { writer, item in writer.any(item) }
        case let members as [String: Any]: return object(members) { writer, member in writer.any(member) }
        default: return false
        }
        return true
    }

    /// Swift values as JSON (``any(_:)``), or nil when they hold something JSON cannot.
    public static func data(_ value: Any) -> [UInt8]? {
        var writer = JSONWriter()
        return writer.any(value) ? writer.bytes : nil
    }

    /// An object of strings, keys in code-unit order (as `.sortedKeys`).
    public mutating func stringMap(_ map: [String: String]) {
        _ = object(map) { writer, value in
            writer.string(value)
            return true
        }
    }

    /// `[` the items, each written by `write`, `]`; false as soon as `write` is (the rest unwritten).
    private mutating func array<Items: Collection>(
        _ items: Items, _ write: (inout JSONWriter, Items.Element) -> Bool
    ) -> Bool {
        raw("[")
        for (index, item) in items.enumerated() {
            if index > 0 { raw(",") }
            guard write(&self, item) else { return false }
        }
        raw("]")
        return true
    }

    /// `{` the members in key order (code units, as `.sortedKeys`), each value written by
    /// `write`, `}`; false as soon as `write` is (the rest unwritten).
    private mutating func object<Value>(_ members: [String: Value], _ write: (inout JSONWriter, Value) -> Bool) -> Bool
    {
        raw("{")
        for (index, key) in members.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            string(key)
            raw(":")
            guard let value = members[key], write(&self, value) else { return false }
        }
        raw("}")
        return true
    }

    // MARK: Documents

    /// An inbox item as the list and the live stream carry it (no `detail`).
    public mutating func notification(_ item: InboxNotification) {
        notificationFields(item)
        notificationClose(readAt: item.readAt, seenAt: item.seenAt)
    }

    /// The fields of an inbox item that never change, as an open object:
    /// `{"id":…,"type":…,…,"createdAt":"…"` (no `readAt`, `seenAt` or closing brace). The store
    /// keeps this per row so a list page is written without decoding the row
    /// (see ``notificationClose(readAt:seenAt:)``).
    public mutating func notificationFields(_ item: InboxNotification) {
        raw(#"{"id":"#)
        string(item.id)
        raw(#","type":"#)
        string(item.type)
        raw(#","category":"#)
        optionalString(item.category)
        raw(#","title":"#)
        string(item.title)
        raw(#","body":"#)
        string(item.body)
        raw(#","data":"#)
        stringMap(item.data)
        raw(#","deepLink":"#)
        optionalString(item.deepLink)
        raw(#","hasDetail":"#)
        bool(item.hasDetail)
        raw(#","createdAt":"#)
        date(item.createdAt)
    }

    /// Completes an item opened by ``notificationFields(_:)``.
    public mutating func notificationClose(readAt: Date?, seenAt: Date?) {
        raw(#","readAt":"#)
        optionalDate(readAt)
        raw(#","seenAt":"#)
        optionalDate(seenAt)
        raw("}")
    }

    // MARK: Helpers

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw(#"\""#)
        case UInt8(ascii: "\\"): raw(#"\\"#)
        case 0x0A: raw(#"\n"#)
        case 0x0D: raw(#"\r"#)
        case 0x09: raw(#"\t"#)
        case 0x08: raw(#"\b"#)
        case 0x0C: raw(#"\f"#)
        default:
            raw(#"\u00"#)
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    private mutating func digits(_ value: Int64, count: Int) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `civil_from_days`).
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A proleptic Gregorian date to days since 1970-01-01, the inverse of ``civil(fromDays:)``
    /// (Howard Hinnant's `days_from_civil`; month 1–12).
    package static func days(fromCivil date: (year: Int64, month: Int64, day: Int64)) -> Int64 {
        let year = date.month <= 2 ? date.year - 1 : date.year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (date.month > 2 ? date.month - 3 : date.month + 9) + 2) / 5 + date.day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
