import FoundationEssentials

/// The error body of an FCM HTTP v1 answer, as Google's APIs write it:
/// `{"error": {"code", "message", "status", "details": [...]}}`, where a detail of type
/// `type.googleapis.com/google.firebase.fcm.v1.FcmError` carries FCM's own `errorCode` and one
/// of type `type.googleapis.com/google.rpc.BadRequest` names the fields at fault.
public struct FCMErrorBody: Sendable, Equatable {
    /// The `@type` of FCM's own detail.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// The `@type` of a detail naming invalid fields.
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// The canonical status, such as `NOT_FOUND` or `UNAUTHENTICATED`.
    public var status: String?
    /// FCM's `ErrorCode`, such as `UNREGISTERED`, from the `FcmError` detail.
    public var errorCode: String?
    /// The human-readable message.
    public var message: String?
    /// The `field` of each `BadRequest` field violation, such as `message.data[0].value`.
    public var fieldViolations: [String]

    public init(status: String?, errorCode: String?, message: String?, fieldViolations: [String] = []) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.fieldViolations = fieldViolations
    }

    /// The error in `body`, or nil when it is not a Google error object.
    public init?(_ body: [UInt8]) {
        guard !body.isEmpty, let decoded = try? JSONDecoder().decode(Wire.self, from: Data(body)) else { return nil }
        let details = decoded.error.details ?? []
        self.init(
            status: decoded.error.status.map { String($0.prefix(64)) },
            errorCode: details.first { $0.type == Self.fcmErrorType }?.errorCode.map { String($0.prefix(64)) },
            message: decoded.error.message.map { String($0.prefix(200)) },
            fieldViolations: details.filter { $0.type == Self.badRequestType }
                .flatMap { $0.fieldViolations ?? [] }.compactMap(\.field))
    }

    /// FCM's code, else the canonical status: the reason recorded on the delivery.
    public var reason: String? { errorCode ?? status }

    /// Whether the error blames the registration token itself: `INVALID_ARGUMENT` from FCM's own
    /// detail, with no field violation other than `message.token`, and a message about the
    /// registration token ("The registration token is not a valid FCM registration token").
    /// A malformed payload comes with a `BadRequest` naming its fields instead.
    public var blamesRegistrationToken: Bool {
        guard errorCode == "INVALID_ARGUMENT", fieldViolations.allSatisfy({ $0 == "message.token" }) else {
            return false
        }
        return !fieldViolations.isEmpty || message?.lowercased().contains("registration token") == true
    }

    private struct Wire: Decodable {
        struct Status: Decodable {
            var code: Int?
            var message: String?
            var status: String?
            var details: [Detail]?
        }

        struct Detail: Decodable {
            struct Violation: Decodable {
                var field: String?
            }

            var type: String?
            var errorCode: String?
            var fieldViolations: [Violation]?

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case errorCode, fieldViolations
            }
        }

        var error: Status
    }
}
