/// An error that becomes an HTTP response: its status, a stable snake_case code and a
/// human message, sent as `{"error":{"code":"…","message":"…"}}`.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// The request field at fault (`title`, `detail.heroImageURL`), when one is: a form shows the
    /// message beside it. Sent as `error.field`.
    public var field: String?
    public var headers: HTTPHeaders

    public init(_ status: Int, code: String, message: String, field: String? = nil, headers: HTTPHeaders = .init()) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public var description: String { "HTTPError(\(status) \(code): \(message))" }

    /// The JSON error response.
    public var response: Response {
        var headers = self.headers
        headers["Content-Type"] = "application/json"
        return Response(status: status, headers: headers, body: .bytes(jsonBody))
    }

    /// `{"error":{"code":"…","message":"…"}}`, with `"field":"…"` when one is at fault.
    public var jsonBody: [UInt8] {
        let fieldMember = field.map { ",\"field\":\(JSONString.quote($0))" } ?? ""
        return Array(
            "{\"error\":{\"code\":\(JSONString.quote(code)),\"message\":\(JSONString.quote(message))\(fieldMember)}}"
                .utf8)
    }

    /// The error a thrown error is answered with: itself when it is an `HTTPError`,
    /// otherwise 500 `internal_error` (503 `cancelled` for task cancellation).
    public static func from(_ error: any Error) -> HTTPError {
        if let error = error as? HTTPError { return error }
        if error is CancellationError {
            return HTTPError(503, code: "cancelled", message: "The request was cancelled.")
        }
        return .internalError()
    }

    // MARK: Common errors

    public static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(400, code: code, message: message)
    }

    /// 401 with its `WWW-Authenticate` challenge (RFC 6750): every 401 is built here, so none
    /// goes out without one.
    public static func unauthenticated(
        _ message: String = "Authentication is required.",
        code: String = "unauthenticated",
        challenge: BearerChallenge = BearerChallenge()
    ) -> HTTPError {
        var headers = HTTPHeaders()
        headers["WWW-Authenticate"] = challenge.headerValue
        return HTTPError(401, code: code, message: message, headers: headers)
    }

    public static func forbidden(
        _ message: String = "You are not allowed to do this.",
        code: String = "forbidden"
    ) -> HTTPError {
        HTTPError(403, code: code, message: message)
    }

    public static func notFound(_ message: String = "Not found.", code: String = "not_found") -> HTTPError {
        HTTPError(404, code: code, message: message)
    }

    /// 405 with an `Allow` header listing `allowed`.
    public static func methodNotAllowed(
        allowed: [HTTPMethod],
        message: String = "This method is not allowed here.",
        code: String = "method_not_allowed"
    ) -> HTTPError {
        var headers = HTTPHeaders()
        headers["Allow"] = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(405, code: code, message: message, headers: headers)
    }

    public static func conflict(_ message: String, code: String = "conflict") -> HTTPError {
        HTTPError(409, code: code, message: message)
    }

    public static func gone(_ message: String = "This resource is gone.", code: String = "gone") -> HTTPError {
        HTTPError(410, code: code, message: message)
    }

    public static func payloadTooLarge(
        _ message: String = "The request body is too large.",
        code: String = "payload_too_large"
    ) -> HTTPError {
        HTTPError(413, code: code, message: message)
    }

    public static func unsupportedMediaType(
        _ message: String = "Unsupported content type.",
        code: String = "unsupported_media_type"
    ) -> HTTPError {
        HTTPError(415, code: code, message: message)
    }

    public static func unprocessableEntity(_ message: String, code: String = "unprocessable_entity") -> HTTPError {
        HTTPError(422, code: code, message: message)
    }

    /// 429, with `Retry-After` (seconds) when given.
    public static func tooManyRequests(
        _ message: String = "Too many requests.",
        code: String = "too_many_requests",
        retryAfterSeconds: Int? = nil
    ) -> HTTPError {
        var headers = HTTPHeaders()
        if let retryAfterSeconds { headers["Retry-After"] = String(retryAfterSeconds) }
        return HTTPError(429, code: code, message: message, headers: headers)
    }

    public static func internalError(
        _ message: String = "Something went wrong on our side.",
        code: String = "internal_error"
    ) -> HTTPError {
        HTTPError(500, code: code, message: message)
    }

    public static func serviceUnavailable(
        _ message: String = "The service is unavailable.",
        code: String = "service_unavailable"
    ) -> HTTPError {
        HTTPError(503, code: code, message: message)
    }

    /// 503 `timeout`: the handler did not answer in time.
    /// The handler outlived the request timeout. Its work may still complete, so the message
    /// says so: a client should retry only what is safe to repeat.
    public static func timeout(
        _ message: String =
            "The request took too long and its outcome is unknown; retry only what is safe to repeat (publish with an Idempotency-Key)."
    ) -> HTTPError {
        HTTPError(503, code: "timeout", message: message)
    }
}

/// The `WWW-Authenticate: Bearer` challenge of a 401 (RFC 6750 section 3): the realm alone when
/// no credential came, `error="invalid_token"` and a description when one came and was refused.
public struct BearerChallenge: Sendable, Equatable {
    public var realm: String?
    /// `invalid_request`, `invalid_token` or `insufficient_scope`; `nil` when no credential came.
    public var error: String?
    /// Human text for the developer; characters RFC 6750 does not allow are replaced.
    public var errorDescription: String?

    public init(realm: String? = nil, error: String? = nil, errorDescription: String? = nil) {
        self.realm = realm
        self.error = error
        self.errorDescription = errorDescription
    }

    /// `Bearer realm="herald", error="invalid_token", error_description="…"`.
    public var headerValue: String {
        let parameters = [("realm", realm), ("error", error), ("error_description", errorDescription)]
            .compactMap { name, value in value.map { "\(name)=\"\(Self.quotable($0))\"" } }
        return parameters.isEmpty ? "Bearer" : "Bearer " + parameters.joined(separator: ", ")
    }

    /// `value` with every character outside RFC 6750's `%x20-21 / %x23-5B / %x5D-7E` replaced:
    /// a double quote by an apostrophe, anything else by `?`.
    static func quotable(_ value: String) -> String {
        String(
            String.UnicodeScalarView(
                value.unicodeScalars.map { scalar in
                    switch scalar.value {
                    case 0x22: "'"
                    case 0x20...0x7E where scalar.value != 0x5C: scalar
                    default: "?"
                    }
                }))
    }
}
