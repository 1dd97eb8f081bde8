import Foundation
import HeraldModel

/// The store's one JSON encoder and decoder: JSON columns (data, detail, push, properties,
/// preferences fields, app config) and stream-event payloads. Dates are ISO 8601.
enum StoreJSON {
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    // JSONEncoder and JSONDecoder are Sendable and safe to share once configured.
    private static let encoder = makeEncoder()
    private static let decoder = makeDecoder()

    static func encode(_ value: some Encodable) throws(StoreError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StoreError(code: .encodingFailed, message: "cannot encode \(type(of: value)): \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, sql: String? = nil) throws(StoreError) -> T {
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(code: .invalidStoredValue, message: "cannot decode stored \(T.self)", sql: sql)
        }
    }
}

// MARK: - Publish fast path

/// Hand-written JSON for the three shapes the publish loop writes per row (the `data` column,
/// the `push` column and the `notification.created` payload). JSONEncoder costs more than the
/// SQLite inserts themselves in a 1,000-recipient batch; this writes the same JSON (keys in
/// code-unit order, times as ISO 8601 seconds like `.iso8601`) several times faster. Tests decode
/// its output with JSONDecoder and compare the key sets with JSONEncoder's, so a field added to
/// the model types fails them until it is added here.
extension StoreJSON {
    static func encodeData(_ data: [String: String]) -> String {
        var out = "{"
        var first = true
        for key in data.keys.sorted() {
            if !first { out += "," }
            first = false
            appendString(key, to: &out)
            out += ":"
            appendString(data[key]!, to: &out)
        }
        out += "}"
        return out
    }

    static func encodePush(_ push: PushOptions) -> String {
        var out = "{"
        if let collapseId = push.collapseId {
            out += "\"collapseId\":"
            appendString(collapseId, to: &out)
            out += ","
        }
        if let priority = push.priority {
            out += "\"priority\":"
            appendString(priority.rawValue, to: &out)
            out += ","
        }
        out += push.send ? "\"send\":true" : "\"send\":false"
        if let sound = push.sound {
            out += ",\"sound\":"
            appendString(sound, to: &out)
        }
        if let ttlSeconds = push.ttlSeconds {
            out += ",\"ttlSeconds\":\(ttlSeconds)"
        }
        out += "}"
        return out
    }

    /// The `notification.created` payload: the inbox item without `detail`, with unset optionals
    /// spelled `null` as the model's own encoding does. `dataJSON` is the item's `data` as
    /// ``encodeData(_:)`` wrote it.
    static func encodeCreatedPayload(_ item: InboxNotification, dataJSON: String) -> String {
        var out = "{\"body\":"
        out.reserveCapacity(256 + item.body.utf8.count + dataJSON.utf8.count)
        appendString(item.body, to: &out)
        out += ",\"category\":"
        appendOptionalString(item.category, to: &out)
        out += ",\"createdAt\":"
        appendDate(item.createdAt, to: &out)
        out += ",\"data\":"
        out += dataJSON
        out += ",\"deepLink\":"
        appendOptionalString(item.deepLink, to: &out)
        out += item.hasDetail ? ",\"hasDetail\":true" : ",\"hasDetail\":false"
        out += ",\"id\":"
        appendString(item.id, to: &out)
        out += ",\"readAt\":"
        appendOptionalDate(item.readAt, to: &out)
        out += ",\"seenAt\":"
        appendOptionalDate(item.seenAt, to: &out)
        out += ",\"title\":"
        appendString(item.title, to: &out)
        out += ",\"type\":"
        appendString(item.type, to: &out)
        out += "}"
        return out
    }

    private static func appendOptionalString(_ value: String?, to out: inout String) {
        if let value { appendString(value, to: &out) } else { out += "null" }
    }

    private static func appendOptionalDate(_ value: Date?, to out: inout String) {
        if let value { appendDate(value, to: &out) } else { out += "null" }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; everything
    /// else (including `/` and non-ASCII) as is.
    static func appendString(_ value: String, to out: inout String) {
        out += "\""
        let needsEscaping = value.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscaping else {
            out += value
            out += "\""
            return
        }
        var pending = ""  // runs of characters that need no escaping
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": pending += "\\\""
            case "\\": pending += "\\\\"
            case "\n": pending += "\\n"
            case "\r": pending += "\\r"
            case "\t": pending += "\\t"
            case "\u{08}": pending += "\\b"
            case "\u{0C}": pending += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                pending += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: pending.unicodeScalars.append(scalar)
            }
        }
        out += pending
        out += "\""
    }

    /// `"yyyy-MM-ddTHH:mm:ssZ"` in UTC, fractional seconds dropped, as JSONEncoder's `.iso8601`.
    static func appendDate(_ date: Date, to out: inout String) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        out += "\"\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):"
        out += "\(pad(secondOfDay % 3_600 / 60, 2)):\(pad(secondOfDay % 60, 2))Z\""
    }
}
