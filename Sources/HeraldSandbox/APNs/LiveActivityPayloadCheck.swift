import FoundationEssentials
import HeraldModel

/// What an ActivityKit push must carry for the device to act on it, which APNs passes on
/// unread and the device then drops without a word: the sandbox refuses it (`BadPayload`) so a
/// developer learns at once. `aps` must hold `timestamp` (whole UNIX seconds), `event` (`start`,
/// `update` or `end`) and a `content-state` object; `stale-date` and `dismissal-date` are UNIX
/// seconds and `relevance-score` a number when present; a start also names its `attributes-type`,
/// gives its `attributes` object and an `alert` (an object with a `title` and a `body`, or text).
enum LiveActivityPayloadCheck {
    static func isValid(_ body: [UInt8]) -> Bool {
        guard let object = JSONValue.object(body) as? [String: Any],
            let aps = object["aps"] as? [String: Any]
        else { return false }
        guard isSeconds(aps["timestamp"]), let event = aps["event"] as? String,
            ["start", "update", "end"].contains(event), aps["content-state"] is [String: Any]
        else { return false }
        for key in ["stale-date", "dismissal-date"] where aps[key] != nil {
            guard isSeconds(aps[key]) else { return false }
        }
        if let score = aps["relevance-score"], !isNumber(score) { return false }
        guard event == "start" else { return true }
        guard let type = aps["attributes-type"] as? String, !type.isEmpty, aps["attributes"] is [String: Any] else {
            return false
        }
        switch aps["alert"] {
        case let text as String: return !text.isEmpty
        case let alert as [String: Any]: return alert["title"] != nil && alert["body"] != nil
        default: return false
        }
    }

    /// A whole, non-negative number (JSON `true` is not one).
    private static func isSeconds(_ value: Any?) -> Bool {
        switch value {
        case let number as Int: number >= 0
        case let number as Double: number >= 0 && number.rounded() == number
        default: false
        }
    }

    /// A JSON number (``JSONValue/object(_:)`` reads numbers, and only numbers, as `Int` or `Double`).
    private static func isNumber(_ value: Any) -> Bool { value is Int || value is Double }
}
