/// Where and as whom the Expo client sends.
public struct ExpoConfiguration: Sendable, Equatable {
    /// The Expo push service.
    public static let productionURL = "https://exp.host"
    /// Expo's limit on the messages of one send request.
    public static let maxMessagesPerRequest = 100
    /// Expo's limit on the ticket ids of one receipts request.
    public static let maxReceiptIDsPerRequest = 1_000

    /// The service without a trailing slash, such as ``productionURL`` or the local sandbox's
    /// `https://127.0.0.1:8090`.
    public var baseURL: String
    /// The access token of a project with enhanced push security, sent as `Authorization: Bearer`.
    public var accessToken: String?

    /// Sends to `baseURL` (a trailing slash is dropped), with `accessToken` when given.
    public init(baseURL: String = productionURL, accessToken: String? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.accessToken = accessToken.flatMap { $0.isEmpty ? nil : $0 }
    }
}
