/// Where and as whom the APNs client sends.
public struct APNsConfiguration: Sendable, Equatable {
    /// Apple's production gateway.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's development gateway, for apps signed with a development profile.
    public static let developmentURL = "https://api.sandbox.push.apple.com"

    /// The gateway without a trailing slash, such as ``productionURL`` or the local sandbox's
    /// `http://127.0.0.1:8090`.
    public var baseURL: String
    /// `apns-topic`: the app's bundle id.
    public var topic: String

    /// Sends to `baseURL` (a trailing slash is dropped) for the app `topic`.
    public init(baseURL: String, topic: String) {
        precondition(!topic.isEmpty, "the APNs topic (bundle id) must not be empty")
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.topic = topic
    }
}
