/// One HTTP/2 request to a push provider.
public struct HTTP2Request: Sendable {
    /// The method, such as "GET" or "POST".
    public var method: String
    /// The absolute URL, `https://` (HTTP/2 over TLS) or `http://` (h2c with prior knowledge).
    public var url: String
    /// Header fields in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The body (empty: none).
    public var body: [UInt8]
    /// Overrides the client's request timeout.
    public var timeout: Duration?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of the header `name` (case-insensitive), such as "apns-id".
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
