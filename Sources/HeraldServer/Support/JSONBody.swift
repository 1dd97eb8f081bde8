import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldServerModel

/// Decodes request bodies and encodes answers with the contract's conventions:
/// camelCase, RFC 3339 times, and a 400 with a message that names the field for bad input.
enum JSONBody {
    /// Decodes `T` from the request body; every failure is a 400 in the error shape.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) throws -> T {
        guard !request.body.isEmpty else {
            throw HTTPError(400, code: "invalid_json", message: "The request body must be a JSON object.")
        }
        do {
            return try decoder.decode(T.self, from: Data(request.body))
        } catch let error as DecodingError {
            throw HTTPError(
                400, code: error.isSyntaxError ? "invalid_json" : "invalid_body", message: error.humanMessage,
                field: error.fieldPath)
        } catch {
            throw HTTPError(400, code: "invalid_json", message: "The request body is not valid JSON.")
        }
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an RFC 3339 time such as 2026-01-31T09:30:00Z.")
            }
            return date
        }
        return decoder
    }()
}

/// Refuses JSON request bodies nested deeper than the limit (400 `json_too_deep`) or with a key
/// repeated in one object (400 `duplicate_json_key`), before any handler decodes them: one linear
/// pass, so a hostile body costs what its length costs.
struct JSONShapeMiddleware: Middleware {
    let maxDepth: Int

    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        if !request.body.isEmpty, let problem = JSONShape.problem(in: request.body, maxDepth: maxDepth) {
            switch problem {
            case .tooDeep(let limit):
                throw HTTPError(
                    400, code: "json_too_deep", message: "The JSON body is nested deeper than \(limit) levels.")
            case .duplicateKey(let key):
                throw HTTPError(
                    400, code: "duplicate_json_key",
                    message: "The JSON body gives the key `\(key.prefix(100))` twice in one object.")
            }
        }
        return try await next(request, context)
    }
}

/// RFC 3339 times with or without fractional seconds.
enum RFC3339 {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// Turns bad input found by the model's validators into a 400 naming the field, so handlers
/// just `try request.validate()`. Innermost middleware: the metrics and the access log see the 400.
struct ValidationErrorMiddleware: Middleware {
    func handle(
        _ request: Request, context: RequestContext,
        next: @Sendable (Request, RequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ValidationError {
            throw HTTPError(400, code: error.code, message: error.message, field: error.field)
        }
    }
}

extension DecodingError {
    /// True when the body was not JSON at all (as opposed to JSON of the wrong shape).
    var isSyntaxError: Bool {
        if case .dataCorrupted(let context) = self, context.codingPath.isEmpty {
            return context.underlyingError != nil || context.debugDescription.contains("JSON")
        }
        return false
    }

    /// The field at fault in the request's spelling (`push.ttlSeconds`, `recipients[2]`); `nil`
    /// for the body as a whole.
    var fieldPath: String? {
        let codingPath: [any CodingKey]
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            codingPath = context.codingPath
        case .keyNotFound(let key, let context): codingPath = context.codingPath + [key]
        @unknown default: return nil
        }
        let joined = Self.joined(codingPath)
        return joined.isEmpty ? nil : joined
    }

    private static func joined(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
            .reduce(into: "") { result, part in result += part.hasPrefix("[") || result.isEmpty ? part : "." + part }
    }

    /// A message for people: which field, and what was wrong with it.
    var humanMessage: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let joined = Self.joined(codingPath)
            return joined.isEmpty ? "the body" : "`\(joined)`"
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type: expected \(Self.typeName(type))."
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must not be null: expected \(Self.typeName(type))."
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "The request body is not valid JSON." }
            return "\(path(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "The request body does not match the expected shape."
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
