import Foundation

/// The admin endpoint of the FCM look-alike, beside the sends on the same server:
///
/// - `GET /admin/fcm/accepted`: `{"accepted": [...], "statusCounts": {"200": n, ...},
///   "tokenExchanges": n}`, each message with its token, name, access token and `message`
///   object, oldest first.
/// - `POST /admin/fcm/faults` with `{"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
///   "times"?}`, `fault` one of `unregistered`, `senderIdMismatch`, `tooManyRequests`,
///   `unavailable`, `delay`, `dropConnection`, `none` (clears): 204.
/// - `DELETE /admin/fcm/faults`: clears every fault, 204.
/// - `DELETE /admin/fcm/access-tokens`: revokes every access token issued, 204.
///
/// Mistakes answer 400 or 404 with `{"error": "..."}`.
struct FCMAdmin {
    static let prefix = "/admin/fcm/"

    /// A fault as the admin endpoint takes it.
    private struct FaultRequest: Decodable {
        var deviceToken: String
        var fault: String
        var retryAfter: Int?
        var delayMilliseconds: Int?
        var times: Int?
    }

    let sandbox: FCMSandbox

    func respond(to request: HTTP2Request) -> HTTP2Response {
        switch (request.method, request.path.split(separator: "?").first.map(String.init) ?? "") {
        case ("GET", Self.prefix + "accepted"): return listAccepted()
        case ("POST", Self.prefix + "faults"): return setFault(request.body)
        case ("DELETE", Self.prefix + "faults"):
            sandbox.clearFaults()
            return HTTP2Response(status: 204)
        case ("DELETE", Self.prefix + "access-tokens"):
            sandbox.revokeAccessTokens()
            return HTTP2Response(status: 204)
        default: return Self.error(404, "no admin route \(request.method) \(request.path.prefix(100))")
        }
    }

    private func listAccepted() -> HTTP2Response {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let accepted: [[String: Any]] = sandbox.accepted.map { message in
            [
                "token": message.token, "name": message.name, "accessToken": message.accessToken,
                "message": message.message, "receivedAt": formatter.string(from: message.receivedAt),
            ]
        }
        let counts = Dictionary(uniqueKeysWithValues: sandbox.statusCounts.map { (String($0.key), $0.value) })
        return Self.json(
            200, ["accepted": accepted, "statusCounts": counts, "tokenExchanges": sandbox.tokenExchanges])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        guard let request = try? JSONDecoder().decode(FaultRequest.self, from: Data(body)) else {
            return Self.error(400, "expected {deviceToken, fault, retryAfter?, delayMilliseconds?, times?}")
        }
        if let times = request.times, times < 1 { return Self.error(400, "times must be at least 1") }
        let fault: FCMFault
        switch request.fault {
        case "unregistered": fault = .unregistered
        case "senderIdMismatch": fault = .senderIdMismatch
        case "tooManyRequests": fault = .tooManyRequests(retryAfter: max(0, request.retryAfter ?? 1))
        case "unavailable": fault = .unavailable
        case "delay": fault = .delay(.milliseconds(max(0, request.delayMilliseconds ?? 1_000)))
        case "dropConnection": fault = .dropConnection
        case "none":
            sandbox.clearFault(for: request.deviceToken)
            return HTTP2Response(status: 204)
        default: return Self.error(400, "unknown fault \(request.fault.prefix(40))")
        }
        sandbox.setFault(fault, for: request.deviceToken, times: request.times)
        return HTTP2Response(status: 204)
    }

    private static func error(_ status: Int, _ message: String) -> HTTP2Response {
        json(status, ["error": message])
    }

    private static func json(_ status: Int, _ object: [String: Any]) -> HTTP2Response {
        HTTP2Response(
            status: status, headers: [HTTP2Header("content-type", "application/json; charset=utf-8")],
            body: FCMReply.json(object))
    }
}
