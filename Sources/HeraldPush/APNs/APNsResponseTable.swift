/// Every answer APNs documents ("Handling notification responses from APNs"), and what each
/// one means for the delivery: the one place that decides send, retry, prune or fail.
public enum APNsResponseTable {
    /// What to do about one answer.
    public enum Action: Sendable, Equatable {
        /// Accepted.
        case sent
        /// The device token is dead: deactivate the device.
        case prune
        /// The provider token was refused: report it to ``APNsProviderToken/rejected(_:_:)``,
        /// then retry.
        case refreshProviderToken(APNsProviderToken.Rejection)
        /// Transient (throttling, an APNs fault, an idle connection): retry later.
        case retry
        /// The request is wrong and will stay wrong: final failure.
        case fail
    }

    /// Each documented `reason` with the status APNs sends it with and its action.
    public static let reasons: [String: (status: Int, action: Action)] = [
        "BadCollapseId": (400, .fail),
        "BadDeviceToken": (400, .prune),
        "BadExpirationDate": (400, .fail),
        "BadMessageId": (400, .fail),
        "BadPriority": (400, .fail),
        "BadTopic": (400, .fail),
        "DeviceTokenNotForTopic": (400, .prune),
        "DuplicateHeaders": (400, .fail),
        // The connection sat idle too long: the request itself is fine on a fresh one.
        "IdleTimeout": (400, .retry),
        "InvalidPushType": (400, .fail),
        "MissingDeviceToken": (400, .fail),
        "MissingTopic": (400, .fail),
        "PayloadEmpty": (400, .fail),
        "TopicDisallowed": (400, .fail),
        "BadCertificate": (403, .fail),
        "BadCertificateEnvironment": (403, .fail),
        "ExpiredProviderToken": (403, .refreshProviderToken(.expired)),
        "Forbidden": (403, .fail),
        "InvalidProviderToken": (403, .refreshProviderToken(.invalid)),
        "MissingProviderToken": (403, .fail),
        "BadPath": (404, .fail),
        "MethodNotAllowed": (405, .fail),
        "ExpiredToken": (410, .prune),
        "Unregistered": (410, .prune),
        "PayloadTooLarge": (413, .fail),
        // A new provider token came sooner than 20 minutes after the last: the next
        // attempt reuses the current one.
        "TooManyProviderTokenUpdates": (429, .retry),
        "TooManyRequests": (429, .retry),
        "InternalServerError": (500, .retry),
        "ServiceUnavailable": (503, .retry),
        "Shutdown": (503, .retry),
    ]

    /// The action for an answer of `status` with the JSON `reason`: the reason's row when it
    /// is documented, otherwise by status (2xx is always sent; 410 prune, 429 and 5xx retry, else fail).
    public static func action(status: Int, reason: String?) -> Action {
        if (200..<300).contains(status) { return .sent }
        if let reason, let row = reasons[reason] { return row.action }
        switch status {
        case 410: return .prune
        case 429, 500..<600: return .retry
        default: return .fail
        }
    }
}
