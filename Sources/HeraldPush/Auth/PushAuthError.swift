/// A failure to authenticate with a push provider: bad credentials or a refused token exchange.
/// Compare with the static members; the detail text does not count.
public struct PushAuthError: Error, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Code: String, Sendable {
        case missingField = "missing_field"
        case invalidField = "invalid_field"
        case tokenRequestRejected = "token_request_rejected"
        case malformedTokenResponse = "malformed_token_response"
    }

    let code: Code
    /// Safe to log: names fields and provider error codes, never key material or tokens.
    let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A required field of the credentials is absent or empty.
    public static let missingField = PushAuthError(.missingField, "")
    /// A field of the credentials has the wrong type or an unusable value.
    public static let invalidField = PushAuthError(.invalidField, "")
    /// The token endpoint answered with an error (e.g. OAuth `invalid_grant`).
    public static let tokenRequestRejected = PushAuthError(.tokenRequestRejected, "")
    /// The token endpoint answered success with a body that is not a usable token.
    public static let malformedTokenResponse = PushAuthError(.malformedTokenResponse, "")

    /// Stable snake_case identifier, e.g. `missing_field`.
    public var identifier: String { code.rawValue }

    public static func == (lhs: PushAuthError, rhs: PushAuthError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        switch code {
        case .missingField: "push credentials lack a field: \(detail)"
        case .invalidField: "push credentials have an invalid field: \(detail)"
        case .tokenRequestRejected: "the token endpoint refused the request: \(detail)"
        case .malformedTokenResponse: "the token endpoint's answer is unusable: \(detail)"
        }
    }

    public var debugDescription: String { "PushAuthError(\(code.rawValue)): \(detail)" }
}
