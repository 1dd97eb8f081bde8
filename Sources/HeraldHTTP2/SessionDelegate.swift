/// What a session's callbacks tell the connection that owns it, on the loop's thread, during the
/// connection's own calls to ``Session/receive(_:)`` and ``Session/nextOutput()``.
package protocol SessionDelegate: AnyObject {
    /// A client opened stream `streamID` with a request's HEADERS (server side).
    func sessionBeganRequest(streamID: Int32)
    /// One header field of stream `streamID`, pseudo-headers included.
    func sessionReceivedHeader(
        streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
    /// A piece of stream `streamID`'s body.
    func sessionReceivedData(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>)
    /// A frame arrived whole.
    func sessionReceived(_ frame: ReceivedFrame)
    /// nghttp2 closed stream `streamID` with this HTTP/2 error code.
    func sessionClosedStream(_ streamID: Int32, code: UInt32)
    /// nghttp2 could not send the HEADERS of stream `streamID` (GOAWAY came first, most often).
    func sessionCouldNotSendHeaders(streamID: Int32, libraryError: Int32)
    /// Copies the next bytes of stream `streamID`'s body into `buffer`: how many, and whether that
    /// was the last of it.
    func sessionReadBody(streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> (
        count: Int, finished: Bool
    )
}

/// The frames a session reports once received.
package enum ReceivedFrame {
    /// A request's HEADERS arrived whole (server side), before its body; `endOfStream` follows
    /// when they also end the stream.
    case requestHeaders(streamID: Int32)
    /// HEADERS or DATA with END_STREAM: the peer's side of the stream is whole.
    case endOfStream(streamID: Int32)
    case reset(streamID: Int32, code: UInt32)
    case goAway(lastStreamID: Int32, code: UInt32)
    /// SETTINGS from the peer (not an acknowledgement).
    case settings
}

extension SessionDelegate {
    package func sessionBeganRequest(streamID: Int32) {}
    package func sessionCouldNotSendHeaders(streamID: Int32, libraryError: Int32) {}
}
