/// A misbehaviour the APNs look-alike shows for one device token, after the request passed every
/// check (so a fault never hides a malformed request).
public enum APNsFault: Sendable, Equatable {
    /// 410 `Unregistered`, with the time the fault was set as its `timestamp`.
    case unregistered
    /// 400 `BadDeviceToken`.
    case badDeviceToken
    /// 429 `TooManyRequests` with a `retry-after` header of that many seconds.
    case tooManyRequests(retryAfter: Int)
    /// 503 `ServiceUnavailable`.
    case serviceUnavailable
    /// Accepted as usual, answered only after this long.
    case delay(Duration)
    /// The connection carrying the request is reset without an answer.
    case dropConnection
}
