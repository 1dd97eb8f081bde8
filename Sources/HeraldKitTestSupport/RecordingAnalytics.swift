import HeraldKit
import HeraldModel

/// Analytics: records every event with its properties.
@MainActor public final class RecordingAnalytics {
    public struct Event: Equatable, Sendable {
        public var name: String
        public var properties: [String: JSONValue]
    }

    public private(set) var events: [Event] = []

    public init() {}

    /// The event names, in order.
    public var names: [String] { events.map(\.name) }

    public var client: AnalyticsClient {
        AnalyticsClient(log: { [self] name, properties in events.append(Event(name: name, properties: properties)) })
    }
}
