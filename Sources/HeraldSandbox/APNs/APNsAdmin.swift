import Foundation

/// The admin endpoint of the APNs look-alike, beside the pushes on the same server (outside `/3/`):
///
/// - `GET /admin/apns/accepted`: `{"accepted": [...], "statusCounts": {"200": n, ...}}`, each
///   notification with its fields, headers and payload (as JSON), oldest first.
/// - `POST /admin/apns/faults` with `{"deviceToken", "fault", "retryAfter"?, "delayMilliseconds"?,
///   "times"?}`, `fault` one of `unregistered`, `badDeviceToken`, `tooManyRequests`,
///   `serviceUnavailable`, `delay`, `dropConnection`, `none` (clears): 204.
/// - `DELETE /admin/apns/faults`: clears every fault, 204.
///
/// Mistakes answer 400 or 404 with `{"error": "..."}`.
struct APNsAdmin {
    static let prefix = "/admin/apns/"

    /// A fault as the admin endpoint takes it.
    private struct FaultRequest: Decodable {
        var deviceToken: String
        var fault: String
        var retryAfter: Int?
        var delayMilliseconds: Int?
        var times: Int?
    }

    let sandbox: APNsSandbox

    func respond(to request: HTTP2Request) -> HTTP2Response {
        switch (request.method, request.path.split(separator: "?").first.map(String.init) ?? "") {
        case ("GET", Self.prefix + "accepted"): return listAccepted()
        case ("POST", Self.prefix + "faults"): return setFault(request.body)
        case ("DELETE", Self.prefix + "faults"):
            sandbox.clearFaults()
            return HTTP2Response(status: 204)
        default: return Self.error(404, "no admin route \(request.method) \(request.path)")
        }
    }

    private func listAccepted() -> HTTP2Response {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let accepted: [[String: Any]] = sandbox.accepted.map { notification in
            var entry: [String: Any] = [
                "deviceToken": notification.deviceToken, "apnsId": notification.apnsID, "topic": notification.topic,
                "pushType": notification.pushType, "priority": notification.priority,
                "headers": Dictionary(notification.headers.map { ($0.name, $0.value) }) { first, _ in first },
                "payload": notification.payloadObject,
                "receivedAt": formatter.string(from: notification.receivedAt),
            ]
            entry["collapseId"] = notification.collapseID
            entry["expiration"] = notification.expiration
            return entry
        }
        let counts = Dictionary(uniqueKeysWithValues: sandbox.statusCounts.map { (String($0.key), $0.value) })
        return Self.json(200, ["accepted": accepted, "statusCounts": counts])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        guard let request = try? JSONDecoder().decode(FaultRequest.self, from: Data(body)) else {
            return Self.error(400, "expected {deviceToken, fault, retryAfter?, delayMilliseconds?, times?}")
        }
        if let times = request.times, times < 1 { return Self.error(400, "times must be at least 1") }
        let fault: APNsFault
        switch request.fault {
        case "unregistered": fault = .unregistered
        case "badDeviceToken": fault = .badDeviceToken
        case "tooManyRequests": fault = .tooManyRequests(retryAfter: max(0, request.retryAfter ?? 1))
        case "serviceUnavailable": fault = .serviceUnavailable
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
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTP2Response(
            status: status, headers: [HTTP2Header("content-type", "application/json; charset=utf-8")],
            body: Array(body))
    }
}
