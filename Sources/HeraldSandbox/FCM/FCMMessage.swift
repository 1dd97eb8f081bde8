import FoundationEssentials
import HeraldModel

/// A message the FCM look-alike accepted, as it arrived.
public struct FCMAcceptedMessage: Sendable, Equatable {
    /// The registration token it was sent to.
    public var token: String
    /// The `name` answered: `projects/{project}/messages/{id}`.
    public var name: String
    /// The access token that authorised it.
    public var accessToken: String
    /// The request body.
    public var body: [UInt8]
    public var receivedAt: Date

    /// The `message` object of the body, for tests and listings.
    public var message: [String: Any] {
        let root = JSONValue.object(body) as? [String: Any]
        return root?["message"] as? [String: Any] ?? [:]
    }
}
