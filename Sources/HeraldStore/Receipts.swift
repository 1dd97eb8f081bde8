import FoundationEssentials
import HeraldModel

/// An Expo push ticket a receipt poller claimed, to fetch its receipt.
public struct ClaimedReceipt: Sendable, Equatable {
    /// The delivery the ticket belongs to.
    public var deliveryID: String
    /// The Expo push ticket id (the receipt id).
    public var ticketID: String
    /// Proves the claim when the receipt is recorded; a newer claim replaces it.
    public var claimToken: String
    /// When Expo accepted the push (the delivery's last change).
    public var sentAt: Date
    /// The attempt the ticket answers (1 for the first send), for the retry policy's limit.
    public var attempts: Int
    /// The app whose Expo credentials fetch the receipt.
    public var appID: String

    public init(
        deliveryID: String, ticketID: String, claimToken: String, sentAt: Date, attempts: Int = 1,
        appID: String = DeviceRegistration.defaultAppID
    ) {
        self.appID = appID
        self.deliveryID = deliveryID
        self.ticketID = ticketID
        self.claimToken = claimToken
        self.sentAt = sentAt
        self.attempts = attempts
    }
}

/// What the receipt of one claimed ticket said.
public struct ReceiptOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Delivered to Apple or Google (or its receipt is gone for good): nothing more to do.
        case delivered
        /// Not ready, or the request failed: ask again at `at`.
        case notReady(askAgainAt: Date)
        /// The push failed: the delivery becomes `failed` with `reason`.
        case failed(reason: String)
        /// The token is dead: the delivery fails with `reason` and the device is deactivated,
        /// unless it was registered again after the send.
        case pruned(reason: String)
        /// Expo dropped the push (`MessageRateExceeded`): the delivery is queued again, due `at`
        /// (or expired, when its TTL runs out first), with `reason` and without its ticket.
        case resend(at: Date, reason: String)
    }

    public var receipt: ClaimedReceipt
    public var result: Result

    public init(_ receipt: ClaimedReceipt, _ result: Result) {
        self.receipt = receipt
        self.result = result
    }
}
