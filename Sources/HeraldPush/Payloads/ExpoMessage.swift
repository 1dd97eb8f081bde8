import Foundation
import HeraldModel

/// One message of an Expo push service request (`POST /--/api/v2/push/send`, up to 100 a batch).
public struct ExpoMessage: Codable, Sendable, Equatable {
    public enum Priority: String, Codable, Sendable {
        case `default`, normal, high
    }

    /// The Expo push token (`ExponentPushToken[...]`); left out of a preview.
    public var to: String?
    public var title: String
    public var body: String
    /// The push data (``PushData``).
    public var data: [String: String]
    /// A sound file name, or `default`; no sound when `nil` (a silent push).
    public var sound: String?
    /// The iOS app icon badge: the user's unseen count.
    public var badge: Int?
    public var priority: Priority
    /// Seconds the push service keeps trying to deliver.
    public var ttl: Int?

    public init(
        to: String?, title: String, body: String, data: [String: String], sound: String? = nil, badge: Int? = nil,
        priority: Priority, ttl: Int? = nil
    ) {
        self.to = to
        self.title = title
        self.body = body
        self.data = data
        self.sound = sound
        self.badge = badge
        self.priority = priority
        self.ttl = ttl
    }
}
