/// The errors the Expo push service documents in tickets and receipts (`details.error`), and
/// what each means for the delivery: the one place that decides prune, retry or fail.
public enum ExpoErrorTable {
    /// The token is dead (the app was uninstalled, or notifications were turned off).
    public static let deviceNotRegistered = "DeviceNotRegistered"
    /// Sending too fast to one device: try again with backoff.
    public static let messageRateExceeded = "MessageRateExceeded"

    /// The verdict on an error ticket with `error` (`details.error`) and `message`:
    /// `DeviceNotRegistered` prunes, `MessageRateExceeded` retries, anything else
    /// (`MessageTooBig`, `InvalidCredentials`, `MismatchSenderId`, ...) fails.
    public static func ticketVerdict(error: String?, message: String?) -> PushVerdict {
        let reason = describe(error: error, message: message)
        switch error {
        case deviceNotRegistered: return .pruned(reason: reason)
        case messageRateExceeded: return .retry(reason: reason, retryAfter: nil)
        default: return .failed(reason: reason)
        }
    }

    /// The verdict on an error receipt: `DeviceNotRegistered` prunes; `MessageRateExceeded`
    /// retries, as Expo drops a push it rate-limits and asks for a slow resend with backoff;
    /// anything else (`MessageTooBig`, `InvalidCredentials`, `MismatchSenderId`, ...) fails.
    public static func receiptVerdict(error: String?, message: String?) -> PushVerdict {
        let reason = describe(error: error, message: message)
        switch error {
        case deviceNotRegistered: return .pruned(reason: reason)
        case messageRateExceeded: return .retry(reason: reason, retryAfter: nil)
        default: return .failed(reason: reason)
        }
    }

    /// The error code, or the message when there is none, at most 64 characters.
    static func describe(error: String?, message: String?) -> String {
        if let error, !error.isEmpty { return String(error.prefix(64)) }
        return "Expo: " + String((message ?? "error without details").prefix(58))
    }
}
