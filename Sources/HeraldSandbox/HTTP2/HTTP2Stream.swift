import HeraldHTTP2

/// What one stream has received so far, and its answer while it is being sent.
final class HTTP2Stream {
    var method = ""
    var path = ""
    var authority = ""
    var scheme = ""
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    /// The body went over the server's limit: it is dropped and the answer is 413.
    var bodyTooLarge = false
    /// Handed to the handler: what still arrives is dropped.
    var dispatched = false
    var response = OutgoingBody()
}
