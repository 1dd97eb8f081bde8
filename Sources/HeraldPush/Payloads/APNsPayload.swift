import Foundation
import HeraldModel

/// The JSON body of an APNs request: `aps` and, beside it at the top level, the push data.
public struct APNsPayload: Codable, Sendable, Equatable {
    /// What the banner shows.
    public struct Alert: Codable, Sendable, Equatable {
        public var title: String
        public var body: String

        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// The `aps` dictionary Apple reads.
    public struct APS: Codable, Sendable, Equatable {
        public var alert: Alert
        /// A sound file name, or `default`; no sound when `nil` (a silent push).
        public var sound: String?
        /// The app icon badge: the user's unseen count.
        public var badge: Int?

        public init(alert: Alert, sound: String? = nil, badge: Int? = nil) {
            self.alert = alert
            self.sound = sound
            self.badge = badge
        }
    }

    public var aps: APS
    /// The push data (``PushData``), written at the top level of the payload.
    public var data: [String: String]

    public init(aps: APS, data: [String: String]) {
        self.aps = aps
        self.data = data
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        aps = try container.decode(APS.self, forKey: Key("aps"))
        var data: [String: String] = [:]
        for key in container.allKeys where key.stringValue != "aps" {
            data[key.stringValue] = try container.decode(String.self, forKey: key)
        }
        self.data = data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(aps, forKey: Key("aps"))
        for (key, value) in data where key != "aps" {
            try container.encode(value, forKey: Key(key))
        }
    }
}
