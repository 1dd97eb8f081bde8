/// Every answer FCM HTTP v1 documents (the `ErrorCode` reference and "Manage registration
/// tokens"), and what each one means for the delivery: the one place that decides send,
/// retry, prune or fail.
public enum FCMResponseTable {
    /// What to do about one answer.
    public enum Action: Sendable, Equatable {
        /// Accepted.
        case sent
        /// The registration token is dead: deactivate the device.
        case prune
        /// The access token was refused: report it to ``FCMAccessTokenCache/rejected(_:)``, then
        /// retry.
        case refreshAccessToken
        /// Transient (quota, an FCM fault): retry later, honouring `Retry-After`.
        case retry
        /// The request or the project's set-up is wrong and will stay wrong: final failure.
        case fail
    }

    /// Each documented FCM `errorCode` with the status FCM sends it with and its action.
    /// `UNSPECIFIED_ERROR` is left to the HTTP status.
    public static let errorCodes: [String: (status: Int, action: Action)] = [
        // Also for a payload FCM refuses; pruned only when the error blames the token.
        "INVALID_ARGUMENT": (400, .fail),
        // The app instance was unregistered, or the token expired.
        "UNREGISTERED": (404, .prune),
        // The token belongs to another sender (Firebase project).
        "SENDER_ID_MISMATCH": (403, .prune),
        "QUOTA_EXCEEDED": (429, .retry),
        "UNAVAILABLE": (503, .retry),
        "INTERNAL": (500, .retry),
        // The APNs certificate or web push key configured in Firebase is invalid or missing: a
        // new OAuth token cannot mend that.
        "THIRD_PARTY_AUTH_ERROR": (401, .fail),
    ]

    /// The wait in seconds before retrying a `QUOTA_EXCEEDED` that came without `Retry-After`:
    /// FCM refuses sends until its per-minute quota refills and asks for "exponential backoff with
    /// a minimum initial delay of 1 minute", so a retry within seconds would only spend an attempt.
    public static let quotaExceededRetryAfter = 60

    /// The action for an answer of `status` with the error `body` (nil for none or not JSON):
    /// FCM's `errorCode` when documented, an `INVALID_ARGUMENT` that blames the token prunes,
    /// otherwise by status (2xx sent; 401 refreshes the access token; 429 and 5xx retry; else fail).
    public static func action(status: Int, error body: FCMErrorBody?) -> Action {
        if (200..<300).contains(status) { return .sent }
        if let body, body.blamesRegistrationToken { return .prune }
        if let code = body?.errorCode, let row = errorCodes[code] { return row.action }
        switch status {
        case 401: return .refreshAccessToken
        case 429, 500..<600: return .retry
        default: return .fail
        }
    }
}
