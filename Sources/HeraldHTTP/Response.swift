import FoundationEssentials

/// An HTTP response: a status, header fields and either a complete body or a stream.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public enum Body: Sendable {
        /// A body known in full (sent with Content-Length).
        case bytes([UInt8])
        /// A body produced over time (sent chunked), e.g. server-sent events.
        case stream(ResponseStream)
    }

    public init(status: Int, headers: HTTPHeaders = .init(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response; dates are encoded as RFC 3339 (ISO 8601) strings.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = try encoder.encode(value)
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/json"
        return Response(status: status, headers: headers, body: .bytes(Array(data)))
    }

    /// 204 No Content.
    public static func noContent() -> Response {
        Response(status: 204)
    }

    /// A plain-text response (UTF-8).
    public static func text(_ text: String, status: Int = 200) -> Response {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }

    /// A `text/event-stream` response fed by `stream` (server-sent events), not cached
    /// by clients or proxies.
    public static func eventStream(_ stream: ResponseStream, headers: HTTPHeaders = .init()) -> Response {
        var all = headers
        if all["Content-Type"] == nil { all["Content-Type"] = "text/event-stream" }
        if all["Cache-Control"] == nil { all["Cache-Control"] = "no-cache" }
        return Response(status: 200, headers: all, body: .stream(stream))
    }

    /// The body bytes, or nil for a streamed body.
    public var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = body { return bytes }
        return nil
    }
}
