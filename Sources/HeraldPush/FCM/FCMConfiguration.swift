/// Where the FCM client sends, and for which Firebase project.
public struct FCMConfiguration: Sendable, Equatable {
    /// Google's FCM endpoint.
    public static let productionURL = "https://fcm.googleapis.com"

    /// The endpoint without a trailing slash, such as ``productionURL`` or the local sandbox's
    /// `https://127.0.0.1:8090`.
    public var baseURL: String
    /// The Firebase project id, from the service account's `project_id`.
    public var projectID: String

    /// Sends to `baseURL` (a trailing slash is dropped) for the project `projectID`.
    public init(baseURL: String = productionURL, projectID: String) {
        precondition(!projectID.isEmpty, "the FCM project id must not be empty")
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.projectID = projectID
    }

    /// `POST` here sends one message: `{baseURL}/v1/projects/{projectID}/messages:send`.
    public var sendURL: String { "\(baseURL)/v1/projects/\(projectID)/messages:send" }
}
