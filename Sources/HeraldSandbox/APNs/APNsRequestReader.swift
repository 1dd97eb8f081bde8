import FoundationEssentials
import HeraldModel

/// Why a push request is refused, and the `apns-id` to answer with when it was readable.
struct APNsRefusal: Error {
    var reason: APNsReason
    var apnsID: String?
}

/// Reads and checks the path, headers and body of a push request as APNs does, in its order:
/// path and method, duplicate headers, `apns-id`, provider token, device token, topic and push
/// type, priority, expiration, collapse id, payload.
struct APNsRequestReader: Sendable {
    /// The path prefix of every push.
    static let pathPrefix = "/3/device/"
    /// Apple's payload ceiling, and the larger one of VoIP pushes.
    static let maximumPayload = 4_096
    static let maximumVoIPPayload = 5_120
    static let maximumCollapseID = 64
    /// Each push type and the suffix its topic adds to the bundle id.
    static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "mdm": "", "widgets": "", "location": ".location-query", "voip": ".voip",
        "complication": ".complication", "fileprovider": ".pushkit.fileprovider",
        "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt",
    ]

    let bundleID: String
    let auth: APNsProviderAuth

    /// The notification `request` carries, received at `now`.
    func read(_ request: HTTP2Request, now: Date) throws(APNsRefusal) -> APNsNotification {
        guard request.path.hasPrefix(Self.pathPrefix) else { throw APNsRefusal(reason: .badPath) }
        guard request.method == "POST" else { throw APNsRefusal(reason: .methodNotAllowed) }
        let deviceToken = String(request.path.dropFirst(Self.pathPrefix.count))
        guard !deviceToken.isEmpty else { throw APNsRefusal(reason: .missingDeviceToken) }
        guard !Self.hasDuplicates(request.headers) else { throw APNsRefusal(reason: .duplicateHeaders) }
        let apnsID = try Self.apnsID(request.header("apns-id"))
        func refuse(_ reason: APNsReason) -> APNsRefusal { APNsRefusal(reason: reason, apnsID: apnsID) }

        if let reason = auth.check(request.header("authorization"), now: now) { throw refuse(reason) }
        guard Self.isDeviceToken(deviceToken) else { throw refuse(.badDeviceToken) }
        guard let topic = request.header("apns-topic") else { throw refuse(.missingTopic) }
        guard Self.isTopic(topic) else { throw refuse(.badTopic) }
        let pushType = request.header("apns-push-type") ?? "alert"
        guard let suffix = Self.topicSuffixes[pushType] else { throw refuse(.invalidPushType) }
        guard topic == bundleID + suffix else { throw refuse(.topicDisallowed) }
        // Live Activity pushes go at 5 or 10 only ("Starting and updating Live Activities with
        // ActivityKit push notifications").
        let priorities = pushType == "liveactivity" ? [5, 10] : [1, 5, 10]
        let priority = try request.header("apns-priority").map { text throws(APNsRefusal) in
            guard let value = Int(text), priorities.contains(value) else { throw refuse(.badPriority) }
            return value
        }
        let expiration = try request.header("apns-expiration").map { text throws(APNsRefusal) in
            guard let value = Int64(text), value >= 0 else { throw refuse(.badExpirationDate) }
            return value
        }
        let collapseID = request.header("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > Self.maximumCollapseID { throw refuse(.badCollapseId) }
        try checkPayload(request.body, pushType: pushType, refuse)
        return APNsNotification(
            deviceToken: deviceToken, apnsID: apnsID, topic: topic, pushType: pushType, priority: priority ?? 10,
            collapseID: collapseID, expiration: expiration, headers: request.headers, payload: request.body,
            receivedAt: now)
    }

    private func checkPayload(
        _ body: [UInt8], pushType: String, _ refuse: (APNsReason) -> APNsRefusal
    ) throws(APNsRefusal) {
        guard !body.isEmpty else { throw refuse(.payloadEmpty) }
        let limit = pushType == "voip" ? Self.maximumVoIPPayload : Self.maximumPayload
        guard body.count <= limit else { throw refuse(.payloadTooLarge) }
        guard APNsPayloadScanner.isPushPayload(body) ?? Self.parsesAsPushPayload(body) else {
            throw refuse(.badPayload)
        }
        if pushType == "liveactivity", !LiveActivityPayloadCheck.isValid(body) { throw refuse(.badPayload) }
    }

    /// The full parser's answer to what ``APNsPayloadScanner`` checks: one JSON object whose
    /// `aps` member is an object.
    static func parsesAsPushPayload(_ body: [UInt8]) -> Bool {
        guard let object = JSONValue.object(body) as? [String: Any] else { return false }
        return object["aps"] is [String: Any]
    }

    /// Whether a header name appears twice (names arrive lowercase). A push has about ten
    /// headers: comparing pairs costs less than hashing them into a set.
    private static func hasDuplicates(_ headers: [HTTP2Header]) -> Bool {
        for (index, header) in headers.enumerated()
        where headers[(index + 1)...].contains(where: { $0.name == header.name }) {
            return true
        }
        return false
    }

    /// The request's `apns-id` when it is a UUID, a new lowercase one when absent.
    private static func apnsID(_ header: String?) throws(APNsRefusal) -> String {
        guard let header else { return RandomUUID.make() }
        guard isCanonicalUUID(header) else { throw APNsRefusal(reason: .badMessageId) }
        return header
    }

    /// 8-4-4-4-12 hex digits (either case) joined by dashes, as `UUID(uuidString:)` takes them,
    /// checked byte by byte: it runs once per push.
    private static func isCanonicalUUID(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            let isDash = count == 8 || count == 13 || count == 18 || count == 23
            guard isDash ? byte == UInt8(ascii: "-") : byte.isHexDigit else { return false }
            count += 1
        }
        return count == 36
    }

    /// Hexadecimal, even length, at least 64 digits (32 bytes), as device tokens are.
    private static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.count % 2 == 0 && token.utf8.allSatisfy(\.isHexDigit)
    }

    /// A reverse-DNS name: letters, digits, `.`, `-` and `_`, not empty.
    private static func isTopic(_ topic: String) -> Bool {
        !topic.isEmpty
            && topic.utf8.allSatisfy { $0.isDigit || $0.isLetter || Array(".-_".utf8).contains($0) }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var isLetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
