/// What one send attempt to a push provider came to, before the retry policy decides when (or
/// whether) to try again. Provider-neutral: the APNs, FCM and Expo clients all answer one.
///
/// `status` is the HTTP status of the provider's answer behind the verdict (for Expo, of the
/// request that carried the ticket), `nil` when no answer came: a transport failure, a
/// credential that could not be made, or a verdict made here. The console shows it beside the
/// reason.
public enum PushVerdict: Sendable, Equatable {
    /// The provider accepted the push; `providerMessageID` is its id for it, when it gives one.
    case sent(providerMessageID: String?, status: Int? = nil)
    /// Worth sending again: a transport failure, 429, 5xx, or a refreshed credential.
    /// `retryAfter` is the provider's `Retry-After` header, verbatim, when it sent one.
    case retry(reason: String, retryAfter: String?, status: Int? = nil)
    /// A final failure: sending the same request again cannot succeed.
    case failed(reason: String, status: Int? = nil)
    /// The device token is dead: the delivery fails and the device is deactivated.
    case pruned(reason: String, status: Int? = nil)

    /// The provider's HTTP status behind this verdict, when an answer came.
    public var status: Int? {
        switch self {
        case .sent(_, let status), .retry(_, _, let status), .failed(_, let status), .pruned(_, let status): status
        }
    }

    /// The same verdict, made from an answer with HTTP status `status`.
    public func answered(_ status: Int) -> PushVerdict {
        switch self {
        case .sent(let id, _): .sent(providerMessageID: id, status: status)
        case .retry(let reason, let retryAfter, _): .retry(reason: reason, retryAfter: retryAfter, status: status)
        case .failed(let reason, _): .failed(reason: reason, status: status)
        case .pruned(let reason, _): .pruned(reason: reason, status: status)
        }
    }
}
