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

/// JSON read into Swift's own types (`[String: Any]`, `[Any]`, `String`, `Bool`, `Int`, `Double`,
/// and ``JSONValue/null`` for `null`), for code that walks a document whose shape it checks field
/// by field (the sandbox's provider checks, the credential and apps files). Parsed with
/// `JSONDecoder`: the server links FoundationEssentials, which has no `JSONSerialization`. A
/// number an `Int` holds exactly reads as that `Int` (every digit of `9007199254740993`), any
/// other as a `Double`; `true` is never a number. Of a key given twice, the decoder keeps the
/// first, and it takes a trailing comma (`[1,]`), as `JSONSerialization` did. HeraldServerModel's
/// `JSONWriter.any(_:)` writes such values back.
extension JSONValue {
    /// The document in `bytes` as Swift values, or nil when it is not JSON.
    package static func object(_ bytes: some Collection<UInt8>) -> Any? {
        (try? JSONDecoder().decode(Tree.self, from: Data(bytes)))?.value
    }

    /// One JSON value as it decodes into Swift's types.
    private struct Tree: Decodable {
        let value: Any

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = JSONValue.null
            } else if let flag = try? container.decode(Bool.self) {
                value = flag
            } else if let integer = try? container.decode(Int.self) {
                value = integer
            } else if let number = try? container.decode(Double.self) {
                value = Int(exactly: number) ?? number
            } else if let text = try? container.decode(String.self) {
                value = text
            } else if let items = try? container.decode([Tree].self) {
                value = items.map(\.value)
            } else {
                value = try container.decode([String: Tree].self).mapValues(\.value)
            }
        }
    }
}
