import FoundationEssentials
import HeraldModel
import HeraldServerModel
import Synchronization

/// Where one push to one device stands.
public enum DeliveryStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting for a worker.
    case queued
    /// Claimed by a worker; due again when its lease runs out unfinished.
    case sending
    case sent
    /// Final: the attempt limit was reached, the provider refused it, or the token was pruned.
    case failed
    /// The push policy (or a missing device) ruled it out; never sent.
    case skipped
    /// Its TTL ran out before it could be sent.
    case expired
    /// Waiting for the user's quiet hours (or snooze) to end.
    case deferred
    /// Held for the user's digest: its summary push carries it (the row itself is never sent).
    case digested
}

/// Why a delivery was skipped when the push policy did not rule it out.
/// Why a delivery waits (`deferred`): quiet hours leave no reason; a snooze says so.
public enum DeliveryDeferReason {
    /// The user's snooze holds it: ending the snooze early releases it.
    public static let snoozed = "snoozed"
}

public enum DeliverySkipReason {
    /// The user had no active device when the notification was published.
    public static let noDevice = "no_device"
    /// By the time the delivery was due, its device was deactivated (pruned), unregistered
    /// (sign-out) or registered to another user.
    public static let deviceInactive = "device_inactive"
}

/// The reason recorded on a delivery whose TTL ran out.
public enum DeliveryExpiryReason {
    public static let ttl = "ttl_expired"
}

/// A device token as a publisher or a webhook receiver sees it: `…` and its last 8 characters (at
/// most half of a short token), enough to tell a user's devices apart, never enough to push to one.
package enum DeviceTokenMask {
    package static func masked(_ token: String) -> String {
        "…" + token.suffix(min(8, token.count / 2))
    }
}

/// One delivery row as its publisher sees it.
public struct DeliveryRecord: Sendable, Equatable {
    /// Stable across attempts: the APNs `apns-id`.
    public var id: String
    public var notificationID: String
    public var userID: String
    /// `nil` on the `no_device` row.
    public var deviceToken: String?
    public var provider: PushProvider?
    public var platform: DevicePlatform?
    public var environment: PushEnvironment?
    public var status: DeliveryStatus
    public var reason: String?
    public var attempts: Int
    /// When the row is next due (a sending row: its lease expiry); `nil` once final.
    public var nextAttemptAt: Date?
    public var expiresAt: Date?
    public var providerMessageID: String?
    /// The Expo push ticket id of an accepted Expo push.
    public var providerTicketID: String?
    /// The HTTP status of the provider's answer to the last attempt; `nil` before one, or when
    /// no answer came (a transport failure).
    public var providerStatus: Int?
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether the device is still registered to the recipient and active: `false` once its
    /// token was pruned (or replaced), `nil` when the device is gone or there never was one.
    public var deviceActive: Bool?
    /// When the recipient first opened the notification from a push; `nil` until then.
    public var openedAt: Date?

    public init(
        id: String, notificationID: String, userID: String, deviceToken: String?, provider: PushProvider?,
        platform: DevicePlatform?, environment: PushEnvironment?, status: DeliveryStatus, reason: String?,
        attempts: Int, nextAttemptAt: Date?, expiresAt: Date?, providerMessageID: String?, createdAt: Date,
        updatedAt: Date, providerTicketID: String? = nil, deviceActive: Bool? = nil, providerStatus: Int? = nil,
        openedAt: Date? = nil
    ) {
        self.openedAt = openedAt
        self.deviceActive = deviceActive
        self.providerStatus = providerStatus
        self.id = id
        self.notificationID = notificationID
        self.userID = userID
        self.deviceToken = deviceToken
        self.provider = provider
        self.platform = platform
        self.environment = environment
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.expiresAt = expiresAt
        self.providerMessageID = providerMessageID
        self.providerTicketID = providerTicketID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A delivery a worker claimed, with everything it needs to send the push.
public struct ClaimedDelivery: Sendable, Equatable {
    /// Stable across attempts: the APNs `apns-id`.
    public var id: String
    /// Proves the claim when the outcome is recorded; a newer claim replaces it.
    public var claimToken: String
    public var userID: String
    public var deviceToken: String
    public var provider: PushProvider
    public var platform: DevicePlatform
    public var environment: PushEnvironment
    /// Including this one.
    public var attempts: Int
    /// When the row becomes due again if no outcome is recorded.
    public var leaseExpiresAt: Date
    public var expiresAt: Date?
    /// The notification (no detail) the push announces.
    public var notification: InboxNotification
    public var push: PushOptions?
    /// The recipient's unseen count at claim time.
    public var badge: Int
    /// The app of the device (its push credentials); ``DeviceRegistration/defaultAppID`` unless
    /// it named another.
    public var appID: String
    /// The Live Activity push this row sends (to an ActivityKit token), instead of `notification`'s
    /// push; `notification` then only names it.
    public var liveActivity: LiveActivityContent?

    public init(
        id: String, claimToken: String, userID: String, deviceToken: String, provider: PushProvider,
        platform: DevicePlatform, environment: PushEnvironment, attempts: Int, leaseExpiresAt: Date,
        expiresAt: Date?, notification: InboxNotification, push: PushOptions?, badge: Int,
        appID: String = DeviceRegistration.defaultAppID, liveActivity: LiveActivityContent? = nil
    ) {
        self.appID = appID
        self.liveActivity = liveActivity
        self.id = id
        self.claimToken = claimToken
        self.userID = userID
        self.deviceToken = deviceToken
        self.provider = provider
        self.platform = platform
        self.environment = environment
        self.attempts = attempts
        self.leaseExpiresAt = leaseExpiresAt
        self.expiresAt = expiresAt
        self.notification = notification
        self.push = push
        self.badge = badge
    }
}

/// One claimed delivery's outcome, as the worker records it.
public struct DeliveryCompletion: Sendable, Equatable {
    public var id: String
    /// The token of the claim that sent it; the outcome is dropped when the claim no longer holds.
    public var claimToken: String
    public var outcome: DeliveryOutcome
    /// The HTTP status of the provider's answer, when one came.
    public var providerStatus: Int?

    public init(id: String, claimToken: String, outcome: DeliveryOutcome, providerStatus: Int? = nil) {
        self.id = id
        self.claimToken = claimToken
        self.outcome = outcome
        self.providerStatus = providerStatus
    }
}

/// What became of one claimed delivery.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider accepted it.
    case sent(providerMessageID: String?)
    /// Expo accepted it with push ticket `ticketID`, whose receipt is due at `receiptDueAt`
    /// (see ``HeraldStore/claimDueReceipts(limit:now:lease:)``).
    case ticketed(ticketID: String, receiptDueAt: Date)
    /// Try again at `at`; expires instead when `at` is at or past the TTL expiry.
    case retry(at: Date, reason: String)
    /// Final failure (a non-retryable answer or the attempt limit).
    case failed(reason: String)
    /// The TTL ran out before it was sent.
    case expired
    /// The provider says the token is dead: the delivery fails and the device is deactivated.
    case pruned(reason: String)
}

/// Row ids made by Herald (notifications, deliveries, digests, webhook events): version 7 UUIDs
/// in lower case, the form APNs takes as `apns-id`. They sort in the order they were made,
/// within this process: 48 bits of Unix milliseconds, then a 12-bit sequence for ids made in the
/// same millisecond (RFC 9562 §6.2, method 1), then 62 random bits.
///
/// Time order is what keeps writes local. The outbox: a publish's rows are due together, a claim
/// takes them by `(next_attempt_at, id)`, and with ids in insertion order a claim and its
/// outcomes touch a few neighbouring pages of the table instead of one page per row. A publish:
/// a notification's id is indexed (`notifications.id`, `deliveries.notification_id`), and with
/// random ids each of its 1,000 recipients added an entry on a page of its own in both.
package enum TimeOrderedID {
    /// A new id from the system's random generator and clock.
    package static func make() -> String {
        var random = SystemRandomNumberGenerator()
        return make(using: &random)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    /// The last id's millisecond and sequence.
    private static let last = Mutex<(milliseconds: UInt64, sequence: UInt64)>((0, 0))

    /// A new id, later than every id made before in this process; `now` gives the milliseconds
    /// (a clock that stepped back repeats the last one) and `random` the last 62 bits.
    /// Foundation's `UUID().uuidString` costs several times more, which shows in a
    /// 1,000-recipient publish.
    static func make(using random: inout some RandomNumberGenerator, now: Date = Date()) -> String {
        let wallClock = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        let (milliseconds, sequence) = last.withLock { last in
            if wallClock > last.milliseconds {
                last = (wallClock, 0)
            } else if last.sequence < 0xFFF {
                last.sequence += 1
            } else {
                last = (last.milliseconds + 1, 0)  // 4,096 ids in one millisecond: borrow the next
            }
            return last
        }
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | sequence  // version 7
        let low: UInt64 = (random.next() & ~(0xC000 << 48)) | (0x8000 << 48)  // RFC 9562 variant
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { bytes.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            bytes.append(hexDigits[Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
