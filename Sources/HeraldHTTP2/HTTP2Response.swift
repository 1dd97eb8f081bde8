/// The answer to one ``HTTP2Request``: what the push client receives, and what a sandbox handler
/// answers (or, as a fault, the connection dropped or the stream reset instead).
public struct HTTP2Response: Sendable {
    /// The status code.
    public var status: Int
    /// Fields in order. Names arrive in lowercase; a server lower-cases those it sends.
    public var headers: [HTTP2Header]
    /// The body.
    public var body: [UInt8]
    /// The server's: called on the connection's loop thread when this answer cannot be sent
    /// because its stream or connection ended while the handler ran (the client never got it).
    public var whenUnanswered: (@Sendable () -> Void)?
    /// The server's: what it does instead of answering; nil for an answer.
    package let fault: Fault?

    /// What a server does instead of answering.
    package enum Fault: Sendable, Equatable {
        /// Resets the TCP connection at once, without GOAWAY.
        case dropConnection
        /// Resets the request's stream with this code (RST_STREAM).
        case resetStream(HTTP2ErrorCode)
    }

    public init(
        status: Int, headers: [HTTP2Header] = [], body: [UInt8] = [], whenUnanswered: (@Sendable () -> Void)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.whenUnanswered = whenUnanswered
        self.fault = nil
    }

    private init(fault: Fault) {
        self.status = 0
        self.headers = []
        self.body = []
        self.whenUnanswered = nil
        self.fault = fault
    }

    /// Not an answer: the TCP connection carrying the request is reset at once, without a
    /// GOAWAY, failing every stream still open on it (a provider dying mid-stream).
    public static let dropConnection = HTTP2Response(fault: .dropConnection)

    /// Not an answer: the request's stream is reset (RST_STREAM) with `code`; the connection
    /// and its other streams go on.
    public static func resetStream(_ code: HTTP2ErrorCode) -> HTTP2Response {
        HTTP2Response(fault: .resetStream(code))
    }

    /// The first value of the field `name` (any case), such as "apns-id" or "retry-after".
    public func header(_ name: String) -> String? {
        headers.first(named: name)
    }
}
