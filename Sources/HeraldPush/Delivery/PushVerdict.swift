/// What one send attempt to a push provider came to, before the retry policy decides when (or
/// whether) to try again. Provider-neutral: the APNs, FCM and Expo clients all answer one.
public enum PushVerdict: Sendable, Equatable {
    /// The provider accepted the push; `providerMessageID` is its id for it, when it gives one.
    case sent(providerMessageID: String?)
    /// Worth sending again: a transport failure, 429, 5xx, or a refreshed credential.
    /// `retryAfter` is the provider's `Retry-After` header, verbatim, when it sent one.
    case retry(reason: String, retryAfter: String?)
    /// A final failure: sending the same request again cannot succeed.
    case failed(reason: String)
    /// The device token is dead: the delivery fails and the device is deactivated.
    case pruned(reason: String)
}
