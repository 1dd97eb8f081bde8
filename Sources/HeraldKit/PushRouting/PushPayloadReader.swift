import Foundation

/// Finds the `data` contract inside a push payload, whichever provider shaped it.
enum PushPayloadReader {
    /// The top-level strings when they carry the contract (APNs, FCM); otherwise the strings of
    /// a `data` object or of a `data` JSON string (Expo); `nil` when there is none of these.
    static func contractData(in payload: [AnyHashable: Any]) -> [String: String]? {
        let topLevel = strings(in: payload)
        if topLevel[PushTap.Key.notificationId] != nil { return topLevel }
        switch payload["data"] {
        case let object as [AnyHashable: Any]:
            return strings(in: object)
        case let json as String:
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
                return nil
            }
            return strings(in: object)
        default:
            return nil
        }
    }

    /// The entries whose key and value are both strings.
    private static func strings(in dictionary: [AnyHashable: Any]) -> [String: String] {
        var strings: [String: String] = [:]
        for (key, value) in dictionary {
            if let key = key.base as? String, let value = value as? String { strings[key] = value }
        }
        return strings
    }
}
