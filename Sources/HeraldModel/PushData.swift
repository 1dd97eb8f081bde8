#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `data` every push carries, the same for APNs, FCM and Expo, whatever sent it (PUSH-11,
/// PUSH-12): one tap handler routes every push on it.
///
/// On the wire it is a flat object of strings: `notificationId`, `type`, `deepLink` (when set),
/// `hasDetail` (`"true"` or `"false"`), `eventKind` (when set) and the publisher's own keys.
/// The publisher's keys never replace a routing key, and keys a provider reserves for itself
/// (``isProviderReserved(_:)``) are left out, so every provider accepts and carries the same object.
public struct PushData: Sendable, Equatable, Codable {
    /// The inbox notification the push is about; a tap opens it.
    public var notificationId: String
    /// The notification type, e.g. `order.shipped`.
    public var type: String
    /// Where a tap leads, when the publisher set a link.
    public var deepLink: String?
    /// Whether the notification has a rich detail page.
    public var hasDetail: Bool
    /// The kind of event that caused the push, echoed for debugging (not shown).
    public var eventKind: String?
    /// The publisher's own keys, without reserved ones.
    public private(set) var publisherData: [String: String]

    /// Keys the contract owns: a publisher's value under one of them never reaches a device.
    public static let reservedKeys: Set<String> = ["notificationId", "type", "deepLink", "hasDetail", "eventKind"]

    public init(
        notificationId: String, type: String, deepLink: String? = nil, hasDetail: Bool, eventKind: String? = nil,
        publisherData: [String: String] = [:]
    ) {
        self.notificationId = notificationId
        self.type = type
        self.deepLink = deepLink
        self.hasDetail = hasDetail
        self.eventKind = eventKind
        self.publisherData = publisherData.filter { key, _ in
            !Self.reservedKeys.contains(key) && !Self.isProviderReserved(key)
        }
    }

    /// The data of a push about `notification`. `eventKind` defaults to the publisher's own
    /// `data.eventKind`, the one routing key a publisher may set.
    public init(notification: InboxNotification, eventKind: String? = nil) {
        self.init(
            notificationId: notification.id, type: notification.type, deepLink: notification.deepLink,
            hasDetail: notification.hasDetail, eventKind: eventKind ?? notification.data["eventKind"],
            publisherData: notification.data)
    }

    /// Reads the contract from the data a device received; `nil` without a `notificationId`
    /// and a `type`. Keys it does not know are kept in ``publisherData``.
    public init?(_ dictionary: [String: String]) {
        guard let id = dictionary["notificationId"], !id.isEmpty, let type = dictionary["type"], !type.isEmpty
        else { return nil }
        self.init(
            notificationId: id, type: type, deepLink: dictionary["deepLink"].flatMap { $0.isEmpty ? nil : $0 },
            hasDetail: dictionary["hasDetail"] == "true", eventKind: dictionary["eventKind"],
            publisherData: dictionary)
    }

    /// The flat string object every provider carries.
    public var dictionary: [String: String] {
        var result = publisherData
        forEachRoutingField { key, value in result[key] = value }
        return result
    }

    /// Visits the fields of ``dictionary`` without building it (a push writes them once): the
    /// publisher's keys, then the routing keys, which never share a name with them.
    public func forEachField(_ body: (String, String) -> Void) {
        for (key, value) in publisherData { body(key, value) }
        forEachRoutingField(body)
    }

    private func forEachRoutingField(_ body: (String, String) -> Void) {
        body("notificationId", notificationId)
        body("type", type)
        if let deepLink { body("deepLink", deepLink) }
        body("hasDetail", hasDetail ? "true" : "false")
        if let eventKind { body("eventKind", eventKind) }
    }

    /// Whether a provider keeps `key` for itself: `aps` is the APNs payload's own key beside the
    /// data; FCM refuses a message whose data uses `from`, `message_type`, `notification` or a
    /// key starting with `google` or `gcm`.
    public static func isProviderReserved(_ key: String) -> Bool {
        if providerReservedKeys.contains(key) { return true }
        return hasPrefixIgnoringCase(key, "google") || hasPrefixIgnoringCase(key, "gcm")
    }

    /// `key.lowercased().hasPrefix(prefix)` for an ASCII lowercase `prefix`, without a lowercased
    /// copy of every key of every push: no other character lowercases to an ASCII letter of
    /// these, so a byte match decides, unless a non-ASCII byte follows it (a combining mark may
    /// join the last letter into another character, which `hasPrefix` compares whole).
    private static func hasPrefixIgnoringCase(_ key: String, _ prefix: StaticString) -> Bool {
        let prefix = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard key.utf8.starts(with: prefix, by: equalIgnoringASCIICase) else { return false }
        let next = key.utf8.dropFirst(prefix.count).first
        guard let next, next >= 0x80 else { return true }
        return key.lowercased().hasPrefix(String(decoding: prefix, as: UTF8.self))
    }

    private static let providerReservedKeys: Set<String> = [
        "aps", "from", "message_type", "notification", "collapse_key",
    ]

    private static func equalIgnoringASCIICase(_ byte: UInt8, _ lowercase: UInt8) -> Bool {
        byte == lowercase || byte == lowercase - 0x20
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let data = PushData(try container.decode([String: String].self)) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "push data needs a notificationId and a type")
        }
        self = data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(dictionary)
    }
}
