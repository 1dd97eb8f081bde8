import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The APNs push of one Live Activity event, as "Starting and updating Live Activities with
/// ActivityKit push notifications" lays it out: `apns-push-type: liveactivity` on the topic
/// `<bundle id>.push-type.liveactivity`, and an `aps` of `timestamp` (seconds), `event`,
/// `content-state`, and as given `stale-date`, `dismissal-date` (UNIX seconds),
/// `relevance-score` and `alert`; a start adds `attributes-type`, `attributes` and
/// `input-push-token: 1`, so the new activity gets the update token the app then registers.
public struct LiveActivityPayload: Sendable, Equatable {
    /// The suffix APNs requires on the topic of a Live Activity push.
    public static let topicSuffix = ".push-type.liveactivity"

    public var content: LiveActivityContent

    public init(content: LiveActivityContent) {
        self.content = content
    }

    /// `apns-priority`: 10 (at once, counted against the device's Live Activity budget) unless the
    /// publisher asked for `normal` (5, when convenient, not counted).
    public var priority: String { content.priority == .normal ? "5" : "10" }

    /// The request headers in the order they go out: `apns-id` = `id`, push type, topic and
    /// priority.
    public func apnsHeaders(topic: String, id: String) -> [(name: String, value: String)] {
        [
            ("apns-id", id), ("apns-push-type", "liveactivity"), ("apns-topic", topic + Self.topicSuffix),
            ("apns-priority", priority),
        ]
    }

    /// The JSON body.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.raw(#"{"aps":{"timestamp":"#)
        writer.int(Self.seconds(content.timestamp))
        writer.raw(#","event":"#)
        writer.string(content.event.rawValue)
        writer.raw(#","content-state":"#)
        writer.json(.object(content.contentState))
        if let staleDate = content.staleDate {
            writer.raw(#","stale-date":"#)
            writer.int(Self.seconds(staleDate))
        }
        if let dismissalDate = content.dismissalDate {
            writer.raw(#","dismissal-date":"#)
            writer.int(Self.seconds(dismissalDate))
        }
        if let relevanceScore = content.relevanceScore {
            writer.raw(#","relevance-score":"#)
            writer.double(relevanceScore)
        }
        if content.event == .start {
            writer.raw(#","attributes-type":"#)
            writer.string(content.attributesType ?? "")
            writer.raw(#","attributes":"#)
            writer.json(.object(content.attributes ?? [:]))
            writer.raw(#","input-push-token":1"#)
        }
        if let alert = content.alert {
            writer.raw(#","alert":{"title":"#)
            writer.string(alert.title)
            writer.raw(#","body":"#)
            writer.string(alert.body)
            if let sound = alert.sound {
                writer.raw(#","sound":"#)
                writer.string(sound)
            }
            writer.raw("}")
        }
        writer.raw("}}")
        return writer.bytes
    }

    /// Whole seconds since 1970, as every date of the `aps` is.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

}
