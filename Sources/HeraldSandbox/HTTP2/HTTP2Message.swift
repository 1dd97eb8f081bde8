/// One header field. Names arrive lower-cased (HTTP/2 requires it); names of a response are
/// lower-cased when sent.
public struct HTTP2Header: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete request: the stream ended, its body is all here.
public struct HTTP2Request: Sendable {
    public var method: String
    public var path: String
    public var authority: String
    public var scheme: String
    /// Regular fields in arrival order; pseudo-headers are the properties above.
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    /// The connection the request came on, unique within one server: tells apart requests
    /// multiplexed on one connection from requests spread over several.
    public var connectionID: UInt64

    /// A request as a handler receives it; tests build them to call a handler directly.
    public init(
        method: String, path: String, authority: String = "127.0.0.1", scheme: String = "https",
        headers: [HTTP2Header] = [], body: [UInt8] = [], connectionID: UInt64 = 0
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
    }

    /// The first value of the field `name` (any case), if present.
    public func header(_ name: String) -> String? {
        let wanted =
            name.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } ? name.lowercased() : name
        return headers.first { $0.name == wanted }?.value
    }
}

/// What the handler answers: a status, fields and a body; or the fault of cutting the connection.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    /// Called on the connection's loop thread when this answer cannot be sent because its
    /// stream or connection ended while the handler ran (the client never got it).
    public var whenUnanswered: (@Sendable () -> Void)?
    /// Set only by ``dropConnection``.
    let dropsConnection: Bool

    public init(
        status: Int, headers: [HTTP2Header] = [], body: [UInt8] = [], whenUnanswered: (@Sendable () -> Void)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.whenUnanswered = whenUnanswered
        self.dropsConnection = false
    }

    /// Not an answer: the TCP connection carrying the request is reset at once, without a
    /// GOAWAY, failing every stream still open on it (a provider dying mid-stream).
    public static let dropConnection = HTTP2Response(dropping: ())

    private init(dropping: Void) {
        self.status = 0
        self.headers = []
        self.body = []
        self.whenUnanswered = nil
        self.dropsConnection = true
    }
}

/// An HTTP/2 error code, as carried by GOAWAY and RST_STREAM (RFC 9113 section 7).
public struct HTTP2ErrorCode: Hashable, Sendable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A graceful shutdown: streams the server already took are still answered.
    public static let noError = HTTP2ErrorCode(rawValue: 0)
    /// The peer broke the protocol.
    public static let protocolError = HTTP2ErrorCode(rawValue: 1)
    /// The server failed: streams in flight are lost.
    public static let internalError = HTTP2ErrorCode(rawValue: 2)
    /// Too many requests too fast.
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 11)
}
