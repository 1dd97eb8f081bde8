/// A misbehaviour the Expo look-alike shows for one push token, after the request passed every
/// check (so a fault never hides a malformed request).
public enum ExpoFault: Sendable, Equatable {
    /// An error ticket with `DeviceNotRegistered`.
    case deviceNotRegisteredTicket
    /// An ok ticket whose receipt is an error with `DeviceNotRegistered`.
    case deviceNotRegisteredReceipt
    /// An error ticket with `MessageRateExceeded`.
    case messageRateExceeded
    /// An ok ticket whose receipt is an error with `MessageRateExceeded`: Expo dropped the push.
    case messageRateExceededReceipt
    /// The whole request answers 429 `TOO_MANY_REQUESTS` with a `retry-after` of that many seconds.
    case tooManyRequests(retryAfter: Int)
    /// The whole request answers 503.
    case unavailable
    /// Accepted as usual, answered only after this long.
    case delay(Duration)
    /// The connection carrying the request is reset without an answer.
    case dropConnection

    /// Whether the fault is about the whole request rather than one ticket.
    var failsRequest: Bool {
        switch self {
        case .tooManyRequests, .unavailable, .delay, .dropConnection: true
        case .deviceNotRegisteredTicket, .deviceNotRegisteredReceipt, .messageRateExceeded, .messageRateExceededReceipt:
            false
        }
    }
}
