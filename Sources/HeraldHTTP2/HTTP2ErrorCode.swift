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
    /// The stream was not processed: sending it again is safe.
    public static let refusedStream = HTTP2ErrorCode(rawValue: 7)
    /// Too many requests too fast.
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 11)
}
