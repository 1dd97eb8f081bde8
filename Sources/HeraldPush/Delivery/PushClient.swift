import FoundationEssentials
import HeraldModel

/// A provider client the delivery worker sends one push through (APNs, FCM): it answers what
/// came of the attempt as a provider-neutral ``PushVerdict`` and throws only when cancelled.
public protocol PushClient: Sendable {
    /// Sends `payload` to `deviceToken` as delivery `deliveryID`, which expires at `expiresAt`
    /// (nil: the payload's TTL, or the provider's default), at `now`.
    func send(
        deviceToken: String, deliveryID: String, payload: PushPayload, expiresAt: Date?, now: Date
    ) async throws(CancellationError) -> PushVerdict
}

extension APNsClient: PushClient {}
