import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// One message of an Expo push service request (`POST /--/api/v2/push/send`, up to 100 a batch).
public struct ExpoMessage: Codable, Sendable, Equatable {
    public enum Priority: String, Codable, Sendable {
        case `default`, normal, high
    }

    /// `richContent`: the image Android shows out of the box, and iOS through the app's
    /// notification service extension.
    public struct RichContent: Codable, Sendable, Equatable {
        public var image: String
        public init(image: String) { self.image = image }
    }

    /// The Expo push token (`ExponentPushToken[...]`); left out of a preview.
    public var to: String?
    /// Absent from a background update, as `body` is.
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// The push data (``PushData``).
    public var data: [String: String]
    /// No sound when `nil` (a silent push, or a background update); Expo takes the publisher's
    /// own spelling, a name or `{"critical": true, "name", "volume"}`.
    public var sound: PushSound?
    /// The iOS app icon badge: the user's unseen count.
    public var badge: Int?
    public var priority: Priority
    /// Seconds the push service keeps trying to deliver.
    public var ttl: Int?
    /// Pushes with the same collapse id replace each other on the device.
    public var collapseId: String?
    public var categoryId: String?
    public var channelId: String?
    /// `passive`, `active`, `time-sensitive` or `critical` (iOS).
    public var interruptionLevel: String?
    public var richContent: RichContent?
    /// Lets the iOS notification service extension change the push (to fetch its image).
    public var mutableContent: Bool?
    /// A background update (iOS `content-available`).
    public var contentAvailable: Bool?

    public init(
        to: String?, title: String?, subtitle: String? = nil, body: String?, data: [String: String],
        sound: PushSound? = nil, badge: Int? = nil, priority: Priority, ttl: Int? = nil, collapseId: String? = nil,
        categoryId: String? = nil, channelId: String? = nil, interruptionLevel: String? = nil,
        richContent: RichContent? = nil, mutableContent: Bool? = nil, contentAvailable: Bool? = nil
    ) {
        self.to = to
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.data = data
        self.sound = sound
        self.badge = badge
        self.priority = priority
        self.ttl = ttl
        self.collapseId = collapseId
        self.categoryId = categoryId
        self.channelId = channelId
        self.interruptionLevel = interruptionLevel
        self.richContent = richContent
        self.mutableContent = mutableContent
        self.contentAvailable = contentAvailable
    }

    enum CodingKeys: String, CodingKey {
        case to, title, subtitle, body, data, sound, badge, priority, ttl, collapseId, categoryId, channelId
        case interruptionLevel, richContent, mutableContent
        case contentAvailable = "_contentAvailable"
    }
}
