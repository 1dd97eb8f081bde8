import HeraldHTTP2

/// What one stream has received so far, and its answer while it is being sent.
final class HTTP2Stream {
    var method = ""
    var path = ""
    var authority = ""
    var scheme = ""
    var headers: [HTTP2Header] = []
    var body: [UInt8] = []
    /// Handed to the handler: what still arrives is dropped.
    var dispatched = false
    var response = OutgoingBody()
}
