import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// The answers of the FCM look-alike, in Google's shapes: errors as
/// `{"error": {"code", "message", "status", "details"}}` (with an `FcmError` detail carrying FCM's
/// `errorCode`, or a `BadRequest` detail naming the field at fault), OAuth errors as
/// `{"error", "error_description"}`.
struct FCMReply: Error {
    var status: Int
    /// The JSON body.
    var body: [UInt8]
    var headers: [HTTP2Header] = []

    /// A reply of `status` whose body is `object` as JSON.
    init(status: Int, object: [String: Any], headers: [HTTP2Header] = []) {
        self.status = status
        self.body = Self.json(object)
        self.headers = headers
    }

    /// A Google API error without details: `code`, its `canonical` status and `message`.
    static func status(_ code: Int, _ canonical: String, _ message: String) -> FCMReply {
        FCMReply(status: code, object: error(code, canonical, message))
    }

    /// An FCM error carrying FCM's own `errorCode` in an `FcmError` detail.
    static func fcmError(_ status: Int, _ canonical: String, _ errorCode: String, _ message: String) -> FCMReply {
        FCMReply(
            status: status,
            object: error(
                status, canonical, message,
                details: [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode]]))
    }

    /// A 400 `INVALID_ARGUMENT` whose `BadRequest` detail names `field`.
    static func badRequest(field: String, _ message: String) -> FCMReply {
        FCMReply(
            status: 400,
            object: error(
                400, "INVALID_ARGUMENT", message,
                details: [
                    [
                        "@type": "type.googleapis.com/google.rpc.BadRequest",
                        "fieldViolations": [["field": field, "description": message]],
                    ]
                ]))
    }

    /// An unknown JSON field, as Google's JSON-to-protobuf reader refuses it.
    static func unknownField(_ name: String, at path: String) -> FCMReply {
        let location = path.isEmpty ? "" : " at '\(path)'"
        return badRequest(
            field: path,
            "Invalid JSON payload received. Unknown name \"\(name.prefix(60))\"\(location): Cannot find field.")
    }

    /// A value of the wrong type or form at `field`.
    static func invalidValue(_ field: String, type: String, _ value: Any) -> FCMReply {
        badRequest(field: field, "Invalid value at '\(field)' (\(type)), \(String(describing: value).prefix(60))")
    }

    /// 401 for a missing, unknown or expired access token.
    static let unauthenticated = FCMReply(
        status: 401,
        object: error(
            401, "UNAUTHENTICATED",
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
                + "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
        ),
        headers: [HTTP2Header("www-authenticate", #"Bearer realm="https://accounts.google.com/""#)])

    /// An OAuth2 token endpoint error.
    static func oauth(_ status: Int, _ error: String, _ description: String) -> FCMReply {
        FCMReply(status: status, object: ["error": error, "error_description": description])
    }

    /// A Google API error object without FCM details.
    static func error(_ code: Int, _ status: String, _ message: String, details: [[String: Any]]? = nil)
        -> [String: Any]
    {
        var error: [String: Any] = ["code": code, "message": message, "status": status]
        error["details"] = details
        return ["error": error]
    }

    /// The HTTP/2 answer.
    var response: HTTP2Response {
        HTTP2Response(
            status: status, headers: [HTTP2Header("content-type", "application/json; charset=UTF-8")] + headers,
            body: body)
    }

    static func json(_ object: [String: Any]) -> [UInt8] {
        JSONWriter.data(object) ?? Array("{}".utf8)
    }
}
