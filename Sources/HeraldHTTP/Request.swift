import HeraldModel

/// An HTTP request as the application sees it: decoded path, decoded query and the whole body.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The percent-decoded path without the query, e.g. "/v1/me/notifications/abc".
    public var path: String
    /// The path as sent, still percent-encoded: routing splits it into segments before decoding
    /// them, so an encoded slash (`%2F`) stays inside its segment.
    public var rawPath: String
    /// The first value of each query parameter, percent-decoded (`+` is a space).
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: HTTPMethod,
        path: String,
        rawPath: String? = nil,
        query: [String: String] = [:],
        headers: HTTPHeaders = .init(),
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        // A decoded path re-encoded just enough to decode to itself again.
        self.rawPath = rawPath ?? path.replacingLiteral("%", with: "%25")
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Builds a request from a request target such as "/a%20b?x=1&y=2", decoding it
    /// the same way the transport does.
    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = .init(), body: [UInt8] = []) {
        let parts = URLDecoding.splitTarget(target)
        self.init(
            method: method,
            path: URLDecoding.decodePath(parts.path),
            rawPath: String(parts.path),
            query: URLDecoding.parseQuery(parts.query ?? ""),
            headers: headers,
            body: body
        )
    }
}
