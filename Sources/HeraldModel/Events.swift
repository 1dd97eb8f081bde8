#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One analytics event from the app (`notification_banner_shown`, ...).
public struct AnalyticsEvent: Codable, Sendable, Equatable {
    public var name: String
    public var at: Date
    public var properties: [String: JSONValue]?

    public init(name: String, at: Date, properties: [String: JSONValue]? = nil) {
        self.name = name
        self.at = at
        self.properties = properties
    }
}

/// `POST /v1/me/events`: at most ``Limits/eventsPerBatch`` events.
public struct AnalyticsEventBatch: Codable, Sendable, Equatable {
    public var events: [AnalyticsEvent]
    public init(events: [AnalyticsEvent]) { self.events = events }
}

/// The answer to an accepted event batch.
public struct AnalyticsEventReceipt: Codable, Sendable, Equatable {
    public var accepted: Int
    public init(accepted: Int) { self.accepted = accepted }
}
