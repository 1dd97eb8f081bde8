#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Any JSON value, for free-form properties (analytics) kept as they came.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// JSON read into and written from Swift's own types (`[String: Any]`, `[Any]`, `String`, `Bool`,
/// `Int`, `Double`, and ``JSONValue/null`` for `null`), for code that walks a document whose shape
/// it checks field by field (the sandbox's provider checks, credential and apps files). Parsed
/// with `JSONDecoder` through ``JSONValue``: the server links FoundationEssentials, which has no
/// `JSONSerialization`. A whole number that an `Int` holds reads as an `Int`, any other number as
/// a `Double`, and `true` is never a number. Of a key given twice, the decoder keeps the first.
extension JSONValue {
    /// The document in `bytes` as Swift values, or nil when it is not JSON.
    package static func object(_ bytes: some Collection<UInt8>) -> Any? {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)))?.anyValue
    }

    /// The value as Swift values (`null` stays ``JSONValue/null``).
    package var anyValue: Any {
        switch self {
        case .null: JSONValue.null
        case .bool(let value): value
        case .number(let value): Int(exactly: value) ?? value
        case .string(let value): value
        case .array(let values): values.map(\.anyValue)
        case .object(let members): members.mapValues(\.anyValue)
        }
    }

    /// Swift values as JSON: strings, booleans, numbers (any integer or floating-point type),
    /// arrays, string-keyed dictionaries and JSON values; nil for anything else.
    package init?(any value: Any) {
        switch value {
        case let value as JSONValue: self = value
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as any BinaryInteger: self = .number(Double(value))
        case let value as any BinaryFloatingPoint: self = .number(Double(value))
        case let values as [Any]:
            var array: [JSONValue] = []
            for item in values {
                guard let item = JSONValue(any: item) else { return nil }
                array.append(item)
            }
            self = .array(array)
        case let members as [String: Any]:
            var object: [String: JSONValue] = [:]
            for (key, item) in members {
                guard let item = JSONValue(any: item) else { return nil }
                object[key] = item
            }
            self = .object(object)
        default: return nil
        }
    }

    /// Swift values written as JSON, keys sorted (and indented when `pretty`); nil when `value`
    /// holds something JSON cannot.
    package static func data(_ value: Any, pretty: Bool = false) -> Data? {
        guard let json = JSONValue(any: value) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return try? encoder.encode(json)
    }
}
