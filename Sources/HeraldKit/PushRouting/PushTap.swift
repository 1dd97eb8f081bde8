import HeraldModel

/// A tapped Herald push, read from its `data`: the same string contract for every provider
/// and every source (PUSH-11, PUSH-12):
/// `{notificationId, type, deepLink?, hasDetail ("true"/"false"), eventKind?, ...publisher data}`.
public struct PushTap: Sendable, Equatable {
    public var notificationId: String
    /// The dotted type, e.g. `order.shipped`.
    public var type: String
    /// Where the publisher asked the tap to lead; followed only when allowlisted (TAP-01).
    public var deepLink: String?
    /// Whether the notification has a rich detail page (TAP-04).
    public var hasDetail: Bool
    /// The event the push echoes, for debugging; never shown.
    public var eventKind: String?
    /// Every string of the payload's `data`, routing keys included, so a catalog route
    /// can fill its placeholders (`orderId`, `productId`, ...).
    public var data: [String: String]
    /// The action button tapped (`UNNotificationResponse.actionIdentifier`, Expo's
    /// `actionIdentifier`); nil for a tap on the notification itself, which the OS's and
    /// Expo's default identifiers also mean. ``PushRouter`` routes it by ``PushAction``.
    public var actionIdentifier: String?

    public init(
        notificationId: String, type: String, deepLink: String? = nil, hasDetail: Bool = false,
        eventKind: String? = nil, data: [String: String] = [:], actionIdentifier: String? = nil
    ) {
        self.notificationId = notificationId
        self.type = type
        self.deepLink = deepLink
        self.hasDetail = hasDetail
        self.eventKind = eventKind
        self.data = data
        self.actionIdentifier = actionIdentifier.flatMap {
            $0.isEmpty || PushAction.defaultIdentifiers.contains($0) ? nil : $0
        }
    }

    /// Reads the contract from a `data` map with the rules of ``PushData``; `nil` when
    /// `notificationId` or `type` is missing or empty (not a Herald push). Empty `deepLink` and
    /// `eventKind` count as absent.
    public init?(data: [String: String], actionIdentifier: String? = nil) {
        guard let contract = PushData(data) else { return nil }
        self.init(
            notificationId: contract.notificationId, type: contract.type, deepLink: contract.deepLink,
            hasDetail: contract.hasDetail, eventKind: contract.eventKind.flatMap { $0.isEmpty ? nil : $0 },
            data: data, actionIdentifier: actionIdentifier
        )
    }

    /// Reads a tapped push as the OS or SDK hands it over, whatever sent it:
    /// - APNs `userInfo` (and FCM on iOS): the data keys at the top level next to `aps`;
    /// - FCM `RemoteMessage.data` on Android: the data map itself;
    /// - Expo `notification.request.content`: a `data` object, or `data` as a JSON string.
    ///
    /// Only string values are read. `nil` when the payload is not a Herald push.
    /// `actionIdentifier` is the response's (the button tapped), which is not in the payload.
    public init?(payload: [AnyHashable: Any], actionIdentifier: String? = nil) {
        guard let data = PushPayloadReader.contractData(in: payload) else { return nil }
        self.init(data: data, actionIdentifier: actionIdentifier)
    }

    /// The contract's key names.
    public enum Key {
        public static let notificationId = "notificationId"
        public static let type = "type"
        public static let deepLink = "deepLink"
        public static let hasDetail = "hasDetail"
        public static let eventKind = "eventKind"
    }
}
