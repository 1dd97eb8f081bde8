import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// What the look-alikes' admin endpoints (`/admin/apns/`, `/admin/fcm/`, `/admin/expo/`) share:
/// error answers, timestamps, and the body of `POST …/faults`.
enum SandboxAdmin {
    /// `{"error": message}` with `status`.
    static func error(_ status: Int, _ message: String) -> HTTP2Response {
        .json(status, ["error": message])
    }

    /// The 404 of a path no admin route serves.
    static func noRoute(_ request: HTTP2Request) -> HTTP2Response {
        error(404, "no admin route \(request.method) \(request.path.prefix(100))")
    }

    /// A formatter for the accepted lists' times: RFC 3339 with milliseconds.
    static func timestampFormatter() -> Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }

    /// Counts per HTTP status, keyed by the status as text (JSON keys are strings).
    static func statusCounts(_ counts: [Int: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: counts.map { (String($0.key), $0.value) })
    }
}

/// The body of `POST /admin/<provider>/faults`: `{<token key>, "fault", "retryAfter"?,
/// "delayMilliseconds"?, "times"?}`, where the token key is `deviceToken` (APNs, FCM) or `token`
/// (Expo). Each look-alike maps `fault` to its own faults.
struct AdminFaultRequest {
    /// Why a body was refused: the 400 to answer.
    struct Refusal: Error {
        let response: HTTP2Response
    }

    let token: String
    let fault: String
    /// For `tooManyRequests`: the `Retry-After` seconds (1 when not given).
    let retryAfter: Int
    /// For `delay`: how long (1 s when not given).
    let delay: Duration
    /// How many requests the fault applies to; nil until cleared.
    let times: Int?

    /// Reads `body`, whose token field is named `tokenKey`.
    init(_ body: [UInt8], tokenKey: String) throws(Refusal) {
        let usage = "expected {\(tokenKey), fault, retryAfter?, delayMilliseconds?, times?}"
        guard let object = JSONValue.object(body) as? [String: Any],
            let token = object[tokenKey] as? String, let fault = object["fault"] as? String
        else { throw Refusal(response: SandboxAdmin.error(400, usage)) }
        func integer(_ key: String) throws(Refusal) -> Int? {
            guard let value = object[key] else { return nil }
            guard let number = value as? Int else { throw Refusal(response: SandboxAdmin.error(400, usage)) }
            return number
        }
        let times = try integer("times")
        if let times, times < 1 { throw Refusal(response: SandboxAdmin.error(400, "times must be at least 1")) }
        self.token = token
        self.fault = fault
        self.retryAfter = max(0, try integer("retryAfter") ?? 1)
        self.delay = .milliseconds(max(0, try integer("delayMilliseconds") ?? 1_000))
        self.times = times
    }

    /// The 400 for a `fault` this look-alike does not know.
    var unknownFault: HTTP2Response { SandboxAdmin.error(400, "unknown fault \(fault.prefix(40))") }
}

extension HTTP2Response {
    /// `object` as a JSON answer (sorted keys) with `status`.
    static func json(_ status: Int, _ object: [String: Any]) -> HTTP2Response {
        let body = JSONWriter.data(object) ?? Array("{}".utf8)
        return HTTP2Response(
            status: status, headers: [HTTP2Header("content-type", "application/json; charset=utf-8")],
            body: Array(body))
    }
}
