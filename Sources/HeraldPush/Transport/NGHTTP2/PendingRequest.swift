import HeraldHTTP2

/// One request of the nghttp2 engine from `send` to its answer: the header block built on the
/// caller's thread, then, on the loop's thread, its place (waiting, or a stream of a connection)
/// and the response as it arrives.
// Safe: the caller builds it and sets `continuation` before queueing it; from then on only the
// loop's thread touches it (the mailbox's lock orders the hand-over).
final class PendingRequest: @unchecked Sendable {
    /// Where the request is in its life, as the loop sees it.
    enum Phase {
        /// Not taken from the mailbox yet.
        case new
        /// Waiting for a stream slot on a connection of its origin.
        case waiting
        /// Submitted as stream `streamID` of `connection`.
        case streaming
        /// Its caller was resumed; whatever happens to its stream now is ignored.
        case finished
    }

    let origin: Origin
    /// Every field, pseudo-headers first.
    let headerBlock: HeaderBlock
    var body: OutgoingBody
    /// When the request times out, counted from `send`.
    let deadline: ContinuousClock.Instant
    let timeout: Duration
    var continuation: CheckedContinuation<ReceivedResponse, any Error>?

    // The loop's state.
    var phase = Phase.new
    /// A cancellation reached the loop before the request did.
    var cancelRequested = false
    var streamID: Int32 = 0
    unowned(unsafe) var connection: ClientConnection?
    /// Position in the loop's ``DeadlineHeap`` (-1: not in it).
    var heapIndex = -1
    var status = 0
    /// Response header lines, "name: value\r\n" each, parsed on the caller's thread.
    var head: [UInt8] = []
    var responseBody: [UInt8] = []
    /// END_STREAM arrived: the response is whole.
    var responseComplete = false
    /// The error code of a RST_STREAM the server sent.
    var resetCode: UInt32?

    /// Header fields HTTP/2 forbids (RFC 9113 §8.2.2); `host` becomes `:authority`.
    private static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// Checks and encodes `request`; throws `.invalidRequest` for a bad URL or a header with a
    /// line break (nothing is sent).
    init(_ request: HTTP2Request, configuration: HTTP2ClientConfiguration) throws(HTTP2ClientError) {
        let (origin, path) = try Origin.parse(request)
        self.origin = origin
        timeout = request.timeout ?? configuration.requestTimeout
        deadline = .now + timeout
        body = OutgoingBody(request.body)
        var block = HeaderBlock(capacity: request.headers.count + 5)
        var authority = origin.authority
        var hasContentLength = false
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(request.headers.count)
        for header in request.headers {
            let (name, value) = (header.name, header.value)
            guard !(name.utf8.contains { $0 == 0x0D || $0 == 0x0A } || value.utf8.contains { $0 == 0x0D || $0 == 0x0A })
            else {
                throw HTTP2ClientError(
                    kind: .invalidRequest, code: 0, library: "Herald", message: "line break in header \(name)")
            }
            let lowered = header.lowercasedName
            if lowered == "host" { authority = value }
            if Self.connectionSpecific.contains(lowered) { continue }
            if lowered == "content-length" { hasContentLength = true }
            fields.append((lowered, value))
        }
        block.append(":method", request.method)
        block.append(":scheme", origin.secure ? "https" : "http")
        block.append(":authority", authority)
        block.append(":path", path)
        for (name, value) in fields { block.append(name, value) }
        if !hasContentLength && (!request.body.isEmpty || request.method == "POST" || request.method == "PUT") {
            block.append("content-length", String(request.body.count))
        }
        headerBlock = block
    }

    /// Resumes the caller once; later calls do nothing.
    func resume(_ outcome: Result<ReceivedResponse, any Error>) {
        phase = .finished
        continuation?.resume(with: outcome)
        continuation = nil
    }

    /// The response as received so far, for the caller.
    var received: ReceivedResponse { ReceivedResponse(status: status, head: head, body: responseBody) }
}
