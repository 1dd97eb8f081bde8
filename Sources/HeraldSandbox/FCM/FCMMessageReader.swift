import FoundationEssentials
import HeraldModel

/// Reads and checks a `messages:send` body as FCM does: a JSON object holding `message` (and
/// optionally `validate_only`), no unknown field at any level, exactly one target (a registration
/// token, for this sandbox), string data without FCM's reserved keys, `android.priority` `NORMAL`
/// or `HIGH` (in either case, as Google's JSON parser takes enum names: firebase-admin sends
/// `high`), `android.ttl` a duration such as `"3.5s"`, and a payload of at most 4096 bytes.
///
/// Field names are taken in both spellings protobuf JSON allows (`collapse_key`, `collapseKey`).
struct FCMMessageReader: Sendable {
    /// FCM's payload limit: data keys and values with the notification's title and body.
    static let maximumPayload = 4_096

    /// A body that passed every check.
    struct Read {
        var token: String
        var message: [String: Any]
        var validateOnly: Bool
    }

    func read(_ body: [UInt8]) throws(FCMReply) -> Read {
        guard let root = JSONValue.object(body) as? [String: Any]
        else {
            throw .badRequest(field: "", "Invalid JSON payload received. Expected a JSON object.")
        }
        try Self.known(root, ["message", "validate_only", "validateOnly"], at: "")
        let validateOnly = try (root["validate_only"] ?? root["validateOnly"]).map { value throws(FCMReply) in
            guard let flag = value as? Bool else { throw .invalidValue("validate_only", type: "TYPE_BOOL", value) }
            return flag
        }
        guard let message = root["message"] as? [String: Any] else {
            throw .badRequest(field: "message", "Invalid value at 'message': a message object is required.")
        }
        try Self.known(
            message,
            [
                "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions", "token",
                "topic", "condition",
            ], at: "message")
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard !targets.isEmpty else {
            throw .fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Recipient of the message is not set.")
        }
        guard targets.count == 1 else {
            throw .badRequest(
                field: "message",
                "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1])'")
        }
        guard let token = message["token"] as? String else {
            throw .fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "The sandbox delivers to tokens only.")
        }
        guard Self.isRegistrationToken(token) else {
            throw .fcmError(
                400, "INVALID_ARGUMENT", "INVALID_ARGUMENT",
                "The registration token is not a valid FCM registration token")
        }
        let data = try Self.stringMap(message["data"], at: "message.data")
        if let reserved = data.keys.sorted().first(where: Self.isReservedDataKey) {
            throw .fcmError(
                400, "INVALID_ARGUMENT", "INVALID_ARGUMENT",
                "Invalid data key \"\(reserved.prefix(60))\": reserved by FCM")
        }
        let notification = try Self.strings(
            message["notification"], ["title", "body", "image"], at: "message.notification")
        try Self.android(message["android"])
        try Self.apns(message["apns"])
        try Self.webpush(message["webpush"])
        try Self.fcmOptions(message, ["analytics_label", "analyticsLabel"], at: "message")
        let size =
            data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            + ["title", "body"].reduce(0) { $0 + (notification[$1]?.utf8.count ?? 0) }
        guard size <= Self.maximumPayload else {
            throw .fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Android message is too big")
        }
        return Read(token: token, message: message, validateOnly: validateOnly ?? false)
    }

    private static func android(_ value: Any?) throws(FCMReply) {
        guard let value else { return }
        guard let android = value as? [String: Any] else {
            throw .invalidValue("message.android", type: "TYPE_MESSAGE", value)
        }
        try known(
            android,
            [
                "collapse_key", "collapseKey", "priority", "ttl", "restricted_package_name", "restrictedPackageName",
                "data", "notification", "fcm_options", "fcmOptions", "direct_boot_ok", "directBootOk",
                "bandwidth_constrained_ok", "bandwidthConstrainedOk", "restricted_satellite_ok",
                "restrictedSatelliteOk",
            ], at: "message.android")
        try fcmOptions(android, ["analytics_label", "analyticsLabel"], at: "message.android")
        if let priority = android["priority"] {
            guard let text = priority as? String, ["NORMAL", "HIGH"].contains(text.uppercased()) else {
                throw .invalidValue(
                    "message.android.priority",
                    type: "type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority",
                    priority)
            }
        }
        if let ttl = android["ttl"] {
            guard let text = ttl as? String, isDuration(text) else {
                throw .invalidValue("message.android.ttl", type: "type.googleapis.com/google.protobuf.Duration", ttl)
            }
        }
        _ = try strings(
            android, ["collapse_key", "collapseKey", "restricted_package_name", "restrictedPackageName"],
            at: "message.android", allowingOthers: true)
        _ = try stringMap(android["data"], at: "message.android.data")
        if let notification = android["notification"] as? [String: Any] {
            try known(notification, androidNotificationFields, at: "message.android.notification")
        }
        _ = try strings(
            android["notification"],
            [
                "title", "body", "icon", "color", "sound", "tag", "click_action", "clickAction", "body_loc_key",
                "bodyLocKey", "title_loc_key", "titleLocKey", "channel_id", "channelId", "ticker", "image",
            ], at: "message.android.notification", allowingOthers: true)
    }

    /// Every field of FCM's `AndroidNotification`, in both spellings.
    private static let androidNotificationFields: Set<String> = {
        let names = [
            "title", "body", "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args",
            "title_loc_key", "title_loc_args", "channel_id", "ticker", "sticky", "event_time", "local_only",
            "notification_priority", "default_sound", "default_vibrate_timings", "default_light_settings",
            "vibrate_timings", "visibility", "notification_count", "light_settings", "image",
            "bypass_proxy_notification", "proxy",
        ]
        return Set(names + names.map(lowerCamelCase))
    }()

    /// `click_action` as `clickAction`.
    private static func lowerCamelCase(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
    }

    private static func apns(_ value: Any?) throws(FCMReply) {
        guard let value else { return }
        guard let apns = value as? [String: Any] else {
            throw .invalidValue("message.apns", type: "TYPE_MESSAGE", value)
        }
        try known(
            apns, ["headers", "payload", "fcm_options", "fcmOptions", "live_activity_token", "liveActivityToken"],
            at: "message.apns")
        _ = try stringMap(apns["headers"], at: "message.apns.headers")
        try fcmOptions(apns, ["analytics_label", "analyticsLabel", "image"], at: "message.apns")
        if let payload = apns["payload"] {
            guard let object = payload as? [String: Any], object["aps"] == nil || object["aps"] is [String: Any] else {
                throw .invalidValue("message.apns.payload", type: "type.googleapis.com/google.protobuf.Struct", payload)
            }
        }
    }

    /// `WebpushConfig`: headers, data, notification (a free-form object) and its options.
    private static func webpush(_ value: Any?) throws(FCMReply) {
        guard let value else { return }
        guard let webpush = value as? [String: Any] else {
            throw .invalidValue("message.webpush", type: "TYPE_MESSAGE", value)
        }
        try known(webpush, ["headers", "data", "notification", "fcm_options", "fcmOptions"], at: "message.webpush")
        _ = try stringMap(webpush["headers"], at: "message.webpush.headers")
        _ = try stringMap(webpush["data"], at: "message.webpush.data")
        if let notification = webpush["notification"], !(notification is [String: Any]) {
            throw .invalidValue(
                "message.webpush.notification", type: "type.googleapis.com/google.protobuf.Struct", notification)
        }
        try fcmOptions(webpush, ["link", "analytics_label", "analyticsLabel"], at: "message.webpush")
    }

    /// The `fcm_options` (or `fcmOptions`) object inside `parent`: string fields `names` only.
    private static func fcmOptions(_ parent: [String: Any], _ names: Set<String>, at path: String) throws(FCMReply) {
        for key in ["fcm_options", "fcmOptions"] {
            _ = try strings(parent[key], names, at: "\(path).\(key)")
        }
    }

    /// Refuses the first key of `object` not in `names`.
    private static func known(_ object: [String: Any], _ names: Set<String>, at path: String) throws(FCMReply) {
        if let unknown = object.keys.sorted().first(where: { !names.contains($0) }) {
            throw .unknownField(unknown, at: path)
        }
    }

    /// A map of strings (FCM's `map<string, string>`), empty when absent.
    private static func stringMap(_ value: Any?, at path: String) throws(FCMReply) -> [String: String] {
        guard let value else { return [:] }
        guard let object = value as? [String: Any] else { throw .invalidValue(path, type: "TYPE_MESSAGE", value) }
        var map: [String: String] = [:]
        for (index, key) in object.keys.sorted().enumerated() {
            guard let text = object[key] as? String else {
                throw .invalidValue("\(path)[\(index)].value", type: "TYPE_STRING", object[key] ?? "")
            }
            map[key] = text
        }
        return map
    }

    /// The string fields `names` of the object `value` (none when absent); another field is
    /// refused unless `allowingOthers`.
    private static func strings(
        _ value: Any?, _ names: Set<String>, at path: String, allowingOthers: Bool = false
    ) throws(FCMReply) -> [String: String] {
        guard let value else { return [:] }
        guard let object = value as? [String: Any] else { throw .invalidValue(path, type: "TYPE_MESSAGE", value) }
        if !allowingOthers { try known(object, names, at: path) }
        var fields: [String: String] = [:]
        for name in names.sorted() {
            guard let field = object[name] else { continue }
            guard let text = field as? String else {
                throw .invalidValue("\(path).\(name)", type: "TYPE_STRING", field)
            }
            fields[name] = text
        }
        return fields
    }

    /// A data key FCM keeps for itself: `from`, `message_type`, or one starting with `google` or `gcm`.
    static func isReservedDataKey(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["from", "message_type"].contains(lowered) || lowered.hasPrefix("google") || lowered.hasPrefix("gcm")
    }

    /// A protobuf JSON duration: whole seconds with up to nine fractional digits, then `s`.
    static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let parts = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit) else {
            return false
        }
        return parts.count == 1 || ((1...9).contains(parts[1].count) && parts[1].allSatisfy(\.isASCIIDigit))
    }

    /// 1 to 4096 of letters, digits and `_ : - .`, as registration tokens are.
    static func isRegistrationToken(_ token: String) -> Bool {
        (1...4_096).contains(token.utf8.count)
            && token.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789_:-.".unicodeScalars.contains($0))
            }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
