import FoundationEssentials
import HeraldModel

/// What an ActivityKit push does to a Live Activity (APNs `aps.event`).
public enum LiveActivityEvent: String, Codable, Sendable, CaseIterable {
    case start, update, end
}

/// The alert a Live Activity push may show (required to start one): APNs `aps.alert` with its
/// `sound` inside, as ActivityKit reads it.
public struct LiveActivityAlert: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// A sound file bundled with the app, or `default`; no sound when omitted.
    public var sound: String?

    public init(title: String, body: String, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case title, body, sound }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "alert")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        sound = try container.decodeIfPresent(String.self, forKey: .sound)
    }
}

/// A publisher's Live Activity push: `POST /v1/users/{id}/live-activities` starts one (event
/// `start`, the default there), `POST /v1/live-activities/{activityId}` updates or ends one.
/// A key not listed here is refused.
public struct LiveActivityRequest: Codable, Sendable, Equatable {
    public var event: LiveActivityEvent?
    /// Start only: the publisher's id for the new activity (one is made when omitted). Put it in
    /// `attributes` too, so the app registers the activity's update token under it.
    public var activityId: String?
    /// Start only: the app's `ActivityAttributes` type (APNs `attributes-type`).
    public var attributesType: String?
    /// Start only: the activity's static attributes (APNs `attributes`).
    public var attributes: [String: JSONValue]?
    /// The activity's `ContentState` (APNs `content-state`): every event carries it.
    public var contentState: [String: JSONValue]
    /// When the activity's content turns stale (APNs `stale-date`).
    public var staleDate: Date?
    /// End only: when the ended activity leaves the Lock Screen (APNs `dismissal-date`).
    public var dismissalDate: Date?
    /// A banner with the push; required to start, else the update is silent.
    public var alert: LiveActivityAlert?
    /// Which of the app's activities leads in the Dynamic Island (APNs `relevance-score`).
    public var relevanceScore: Double?
    /// `high` (APNs priority 10, the default: delivered at once, counted against the device's
    /// budget of Live Activity updates) or `normal` (5: delivered when convenient, not counted).
    /// A push with an alert goes at high priority.
    public var priority: PushOptions.Priority?
    /// How long APNs keeps trying (`apns-expiration`); its own policy when omitted, once when 0.
    public var ttlSeconds: Int?

    public init(
        event: LiveActivityEvent? = nil, activityId: String? = nil, attributesType: String? = nil,
        attributes: [String: JSONValue]? = nil, contentState: [String: JSONValue], staleDate: Date? = nil,
        dismissalDate: Date? = nil, alert: LiveActivityAlert? = nil, relevanceScore: Double? = nil,
        priority: PushOptions.Priority? = nil, ttlSeconds: Int? = nil
    ) {
        self.event = event
        self.activityId = activityId
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.alert = alert
        self.relevanceScore = relevanceScore
        self.priority = priority
        self.ttlSeconds = ttlSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case event, activityId, attributesType, attributes, contentState, staleDate, dismissalDate, alert
        case relevanceScore, priority, ttlSeconds
    }

    public init(from decoder: any Decoder) throws {
        try StrictKeys.reject(
            unknownIn: decoder, allowed: CodingKeys.allCases.map(\.rawValue), type: "a Live Activity push")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        event = try container.decodeIfPresent(LiveActivityEvent.self, forKey: .event)
        activityId = try container.decodeIfPresent(String.self, forKey: .activityId)
        attributesType = try container.decodeIfPresent(String.self, forKey: .attributesType)
        attributes = try container.decodeIfPresent([String: JSONValue].self, forKey: .attributes)
        contentState = try container.decode([String: JSONValue].self, forKey: .contentState)
        staleDate = try container.decodeIfPresent(Date.self, forKey: .staleDate)
        dismissalDate = try container.decodeIfPresent(Date.self, forKey: .dismissalDate)
        alert = try container.decodeIfPresent(LiveActivityAlert.self, forKey: .alert)
        relevanceScore = try container.decodeIfPresent(Double.self, forKey: .relevanceScore)
        priority = try container.decodeIfPresent(PushOptions.Priority.self, forKey: .priority)
        ttlSeconds = try container.decodeIfPresent(Int.self, forKey: .ttlSeconds)
    }
}

extension LiveActivityRequest {
    /// Checks a start (`POST /v1/users/{id}/live-activities`): event `start` or none, an
    /// attributes type, attributes, a content state and an alert; answers the content to push.
    public func validateStart() throws {
        if let event, event != .start {
            throw ValidationError.invalid(
                "event",
                "must be \"start\" here (or left out); update or end an activity with POST /v1/live-activities/{activityId}."
            )
        }
        if let activityId { try Check.activityID(activityId, "activityId") }
        guard let attributesType else { throw ValidationError.required("attributesType") }
        try Check.attributesType(attributesType, "attributesType")
        guard attributes != nil else { throw ValidationError.required("attributes") }
        guard alert != nil else {
            throw ValidationError.invalid("alert", "is required to start a Live Activity (APNs needs an alert).")
        }
        try validateCommon(event: .start)
    }

    /// Checks an update or end (`POST /v1/live-activities/{activityId}`).
    public func validateChange() throws {
        guard let event else { throw ValidationError.required("event") }
        if event == .start {
            throw ValidationError.invalid(
                "event",
                "must be \"update\" or \"end\" here; start an activity with POST /v1/users/{id}/live-activities.")
        }
        for (name, given) in [
            ("activityId", activityId != nil), ("attributesType", attributesType != nil),
            ("attributes", attributes != nil),
        ] where given {
            throw ValidationError.invalid(
                name, "is given only to start an activity; leave it out of an \(event.rawValue).")
        }
        try validateCommon(event: event)
    }

    private func validateCommon(event: LiveActivityEvent) throws {
        if dismissalDate != nil, event != .end {
            throw ValidationError.invalid("dismissalDate", "applies to event \"end\" only.")
        }
        if let alert {
            try Check.requiredText(alert.title, "alert.title", max: Limits.titleMaxLength)
            try Check.requiredText(alert.body, "alert.body", max: Limits.bodyMaxLength)
            if let sound = alert.sound { try PushSound(name: sound).validate(field: "alert.sound") }
            if priority == .normal {
                throw ValidationError.invalid(
                    "priority",
                    "cannot be normal with an alert: a Live Activity push that alerts goes at high priority.")
            }
        }
        if let relevanceScore, !relevanceScore.isFinite || relevanceScore < 0 {
            throw ValidationError(
                field: "relevanceScore", code: "out_of_range", message: "relevanceScore must be a number of 0 or more.")
        }
        if let ttlSeconds { try PushOptions.validateTTL(ttlSeconds, field: "ttlSeconds") }
    }

    /// The push this request makes, published at `timestamp` (APNs `aps.timestamp`: ActivityKit
    /// shows only the newest).
    public func content(event: LiveActivityEvent, timestamp: Date) -> LiveActivityContent {
        LiveActivityContent(
            event: event, timestamp: timestamp, attributesType: event == .start ? attributesType : nil,
            attributes: event == .start ? attributes : nil, contentState: contentState, staleDate: staleDate,
            dismissalDate: dismissalDate,
            alert: alert.map {
                LiveActivityAlert(title: PushText.truncate($0.title), body: PushText.truncate($0.body), sound: $0.sound)
            },
            relevanceScore: relevanceScore, priority: priority ?? .high)
    }
}

/// One Live Activity push as stored with its delivery rows and sent to APNs: everything of the
/// `aps` dictionary.
public struct LiveActivityContent: Codable, Sendable, Equatable {
    public var event: LiveActivityEvent
    /// The publish time: `aps.timestamp` in whole seconds.
    public var timestamp: Date
    /// Start only.
    public var attributesType: String?
    /// Start only.
    public var attributes: [String: JSONValue]?
    public var contentState: [String: JSONValue]
    public var staleDate: Date?
    public var dismissalDate: Date?
    /// Title and body cut to 150 characters (``PushText``).
    public var alert: LiveActivityAlert?
    public var relevanceScore: Double?
    public var priority: PushOptions.Priority

    public init(
        event: LiveActivityEvent, timestamp: Date, attributesType: String? = nil,
        attributes: [String: JSONValue]? = nil, contentState: [String: JSONValue], staleDate: Date? = nil,
        dismissalDate: Date? = nil, alert: LiveActivityAlert? = nil, relevanceScore: Double? = nil,
        priority: PushOptions.Priority = .high
    ) {
        self.event = event
        self.timestamp = timestamp
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.alert = alert
        self.relevanceScore = relevanceScore
        self.priority = priority
    }
}
