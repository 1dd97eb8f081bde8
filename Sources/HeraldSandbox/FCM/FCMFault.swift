/// A misbehaviour the FCM look-alike shows for one registration token, after the request passed
/// every check (so a fault never hides a malformed request).
public enum FCMFault: Sendable, Equatable {
    /// 404 `NOT_FOUND` with FCM's `UNREGISTERED`.
    case unregistered
    /// 403 `PERMISSION_DENIED` with FCM's `SENDER_ID_MISMATCH`.
    case senderIdMismatch
    /// 429 `RESOURCE_EXHAUSTED` with FCM's `QUOTA_EXCEEDED` and a `retry-after` header of that
    /// many seconds.
    case tooManyRequests(retryAfter: Int)
    /// 503 `UNAVAILABLE` with FCM's `UNAVAILABLE`.
    case unavailable
    /// Accepted as usual, answered only after this long.
    case delay(Duration)
    /// The connection carrying the request is reset without an answer.
    case dropConnection
}
