/// The answer to one `HTTP2Request`.
public struct HTTP2Response: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields in order, names in lowercase (as HTTP/2 sends them).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive), such as "apns-id" or "retry-after".
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
