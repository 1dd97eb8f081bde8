import FoundationEssentials
import HeraldModel

/// A notification the APNs look-alike accepted, as it arrived.
public struct APNsNotification: Sendable, Equatable {
    /// The device token of the path, as sent.
    public var deviceToken: String
    /// The request's `apns-id`, or the one the sandbox made for it.
    public var apnsID: String
    public var topic: String
    /// `apns-push-type`; `alert` when absent.
    public var pushType: String
    /// `apns-priority`; 10 when absent.
    public var priority: Int
    public var collapseID: String?
    /// `apns-expiration` in seconds since 1970 (0: deliver once or not at all); nil when absent.
    public var expiration: Int64?
    /// Every regular header of the request, in arrival order.
    public var headers: [HTTP2Header]
    /// The body: a JSON object with an `aps` dictionary.
    public var payload: [UInt8]
    public var receivedAt: Date

    /// The payload parsed, for tests and listings.
    public var payloadObject: [String: Any] {
        JSONValue.object(payload) as? [String: Any] ?? [:]
    }
}
