import FoundationEssentials

/// What the delivery worker records for one claimed delivery: a ``PushVerdict`` after the
/// ``RetryPolicy`` has turned a retry into a time, or into a final failure at the attempt limit.
///
/// It mirrors the store's `DeliveryOutcome` (sent, retry, failed, pruned; the store itself
/// decides `expired`), so the worker maps it case for case.
public enum DeliveryDecision: Sendable, Equatable {
    /// The provider accepted the push.
    case sent(providerMessageID: String?)
    /// Send again at `at`.
    case retry(at: Date, reason: String)
    /// Final failure, with the last reason.
    case failed(reason: String)
    /// The token is dead; the device is deactivated.
    case pruned(reason: String)
}
