/// A refusal the APNs look-alike answers with: Apple's `reason` string and its HTTP status.
///
/// The reasons are Apple's own ("Handling notification responses from APNs"), except
/// ``badPayload``: Apple documents none for a body that is not a JSON object with an `aps`
/// dictionary.
public struct APNsReason: Hashable, Sendable, CustomStringConvertible {
    /// The `reason` of the JSON error body, e.g. `BadDeviceToken`.
    public let name: String
    /// The HTTP status it comes with.
    public let status: Int

    private init(_ name: String, _ status: Int) {
        self.name = name
        self.status = status
    }

    public var description: String { "\(status) \(name)" }

    // MARK: 400

    public static let badCollapseId = APNsReason("BadCollapseId", 400)
    public static let badDeviceToken = APNsReason("BadDeviceToken", 400)
    public static let badExpirationDate = APNsReason("BadExpirationDate", 400)
    public static let badMessageId = APNsReason("BadMessageId", 400)
    public static let badPriority = APNsReason("BadPriority", 400)
    public static let badTopic = APNsReason("BadTopic", 400)
    public static let duplicateHeaders = APNsReason("DuplicateHeaders", 400)
    public static let invalidPushType = APNsReason("InvalidPushType", 400)
    public static let missingDeviceToken = APNsReason("MissingDeviceToken", 400)
    public static let missingTopic = APNsReason("MissingTopic", 400)
    public static let payloadEmpty = APNsReason("PayloadEmpty", 400)
    public static let topicDisallowed = APNsReason("TopicDisallowed", 400)
    /// The sandbox's own: the body is not a JSON object holding an `aps` dictionary.
    public static let badPayload = APNsReason("BadPayload", 400)

    // MARK: 403, 404, 405

    public static let expiredProviderToken = APNsReason("ExpiredProviderToken", 403)
    public static let invalidProviderToken = APNsReason("InvalidProviderToken", 403)
    public static let missingProviderToken = APNsReason("MissingProviderToken", 403)
    public static let badPath = APNsReason("BadPath", 404)
    public static let methodNotAllowed = APNsReason("MethodNotAllowed", 405)

    // MARK: 410, 413, 429, 5xx

    /// Comes with a `timestamp`: when the token stopped being valid.
    public static let unregistered = APNsReason("Unregistered", 410)
    public static let payloadTooLarge = APNsReason("PayloadTooLarge", 413)
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates", 429)
    public static let tooManyRequests = APNsReason("TooManyRequests", 429)
    public static let serviceUnavailable = APNsReason("ServiceUnavailable", 503)
}
