import FoundationEssentials
import HeraldModel

/// The JSON body of an APNs request: `aps` and, beside it at the top level, the push data.
public struct APNsPayload: Codable, Sendable, Equatable {
    /// What the banner shows.
    public struct Alert: Codable, Sendable, Equatable {
        public var title: String
        public var subtitle: String?
        public var body: String

        public init(title: String, subtitle: String? = nil, body: String) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }
    }

    /// `aps.sound`: a sound file name or `default`, or for a critical alert the dictionary
    /// `{"critical": 1, "name", "volume"}` Apple documents.
    public struct Sound: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
        public var name: String
        public var critical: Bool
        public var volume: Double?

        public init(name: String, critical: Bool = false, volume: Double? = nil) {
            self.name = name
            self.critical = critical
            self.volume = volume
        }

        public init(stringLiteral name: String) { self.init(name: name) }

        private enum CodingKeys: String, CodingKey { case name, critical, volume }

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
                self.init(name: name)
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                name: try container.decode(String.self, forKey: .name),
                critical: try container.decodeIfPresent(Int.self, forKey: .critical) == 1,
                volume: try container.decodeIfPresent(Double.self, forKey: .volume))
        }

        public func encode(to encoder: any Encoder) throws {
            guard critical else {
                var single = encoder.singleValueContainer()
                try single.encode(name)
                return
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .critical)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(volume, forKey: .volume)
        }
    }

    /// The `aps` dictionary Apple reads.
    public struct APS: Codable, Sendable, Equatable {
        /// The banner; absent from a background update.
        public var alert: Alert?
        /// The app icon badge: the user's unseen count.
        public var badge: Int?
        /// No sound when `nil` (a silent push, or a background update).
        public var sound: Sound?
        public var threadId: String?
        public var category: String?
        /// 1 for a background update (alone in `aps`), or beside an alert.
        public var contentAvailable: Int?
        /// 1 lets the app's notification service extension change the push (to fetch its image).
        public var mutableContent: Int?
        /// `passive`, `active`, `time-sensitive` or `critical`.
        public var interruptionLevel: String?
        public var relevanceScore: Double?

        public init(
            alert: Alert?, sound: Sound? = nil, badge: Int? = nil, threadId: String? = nil, category: String? = nil,
            contentAvailable: Int? = nil, mutableContent: Int? = nil, interruptionLevel: String? = nil,
            relevanceScore: Double? = nil
        ) {
            self.alert = alert
            self.sound = sound
            self.badge = badge
            self.threadId = threadId
            self.category = category
            self.contentAvailable = contentAvailable
            self.mutableContent = mutableContent
            self.interruptionLevel = interruptionLevel
            self.relevanceScore = relevanceScore
        }

        enum CodingKeys: String, CodingKey {
            case alert, badge, sound, category
            case threadId = "thread-id"
            case contentAvailable = "content-available"
            case mutableContent = "mutable-content"
            case interruptionLevel = "interruption-level"
            case relevanceScore = "relevance-score"
        }
    }

    public var aps: APS
    /// The push data (``PushData``), written at the top level of the payload, with the image URL
    /// (`imageURL`) when the push has one.
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
