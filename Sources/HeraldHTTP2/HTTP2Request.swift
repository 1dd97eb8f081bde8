/// The protocol a server received a request over.
public enum HTTPVersion: String, Sendable, Equatable {
    /// HTTP/1.1 (or 1.0): over TLS when ALPN chose `http/1.1` or nothing, or in cleartext.
    case http1 = "HTTP/1.1"
    /// HTTP/2: over TLS by ALPN `h2`, or in cleartext with prior knowledge (h2c).
    case http2 = "HTTP/2"
}

/// One HTTP/2 request: what the push client sends to a provider, and what the sandbox's server
/// hands its handler once the stream has ended and the body is all there (the sandbox's server
/// takes HTTP/1.1 too, and says so in ``version``).
public struct HTTP2Request: Sendable {
    /// The method, such as "GET" or "POST".
    public var method: String
    /// `https` (HTTP/2 over TLS) or `http` (h2c with prior knowledge): `:scheme`.
    public var scheme: String
    /// The host, with the port unless it is the scheme's default: `:authority`.
    public var authority: String
    /// The path with its query: `:path`.
    public var path: String
    /// Regular fields in order; a name may repeat. The pseudo-headers are the properties above.
    public var headers: [HTTP2Header]
    /// The body (empty: none).
    public var body: [UInt8]
    /// The client's: overrides its request timeout. A server leaves it nil.
    public var timeout: Duration?
    /// The server's: the connection the request came on, unique within one server; it tells
    /// requests multiplexed on one connection from requests spread over several. 0 elsewhere.
    public var connectionID: UInt64
    /// The server's: the protocol the request came over. The client sends HTTP/2 only.
    public var version: HTTPVersion

    /// A request for the client to send to the absolute `url`, `https://` (HTTP/2 over TLS) or
    /// `http://` (h2c with prior knowledge). The client checks the URL when sending.
    public init(
        method: String = "GET", url: String, headers: [HTTP2Header] = [], body: [UInt8] = [],
        timeout: Duration? = nil
    ) {
        // Split as written, checked by the client: scheme, then the authority up to the path,
        // query or fragment. Without "://" it is all path, and the client refuses it.
        var scheme = ""
        var authority = ""
        var path = url
        if let separator = Self.schemeSeparator(in: url) {
            let rest = url.utf8[separator.upperBound...]
            let end =
                rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? rest.endIndex
            scheme = String(url[..<separator.lowerBound])
            authority = String(url[separator.upperBound..<end])
            path = String(url[end...])
        }
        self.init(
            method: method, path: path, authority: authority, scheme: scheme, headers: headers, body: body)
        self.timeout = timeout
    }

    /// Where "://" first occurs in `url`. A plain scan: `firstRange(of:)` on the UTF-8 view went
    /// through `_StringProcessing`'s generic searcher and its metadata lookups, 5% of
    /// `herald serve`'s CPU per push (`perf record` of `scripts/bench-push.sh`, 2026-12-07).
    static func schemeSeparator(in url: String) -> Range<String.Index>? {
        let bytes = url.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, bytes[first] == UInt8(ascii: "/") {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, bytes[second] == UInt8(ascii: "/") {
                        return index..<bytes.index(after: second)
                    }
                }
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// A request as a server hands it to its handler; tests build them to call a handler directly.
    public init(
        method: String, path: String, authority: String = "127.0.0.1", scheme: String = "https",
        headers: [HTTP2Header] = [], body: [UInt8] = [], connectionID: UInt64 = 0, version: HTTPVersion = .http2
    ) {
        self.method = method
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.headers = headers
        self.body = body
        self.timeout = nil
        self.connectionID = connectionID
        self.version = version
    }

    /// The absolute URL: `scheme://authority` and the path (the path alone when it has no scheme
    /// or authority).
    public var url: String {
        scheme.isEmpty && authority.isEmpty ? path : scheme + "://" + authority + path
    }

    /// The first value of the field `name` (any case), such as "apns-id".
    public func header(_ name: String) -> String? {
        headers.first(named: name)
    }
}
