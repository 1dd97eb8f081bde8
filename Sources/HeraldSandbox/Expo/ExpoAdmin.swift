import Foundation
import HeraldModel

/// The admin endpoint of the Expo look-alike, beside the push API on the same server:
///
/// - `GET /admin/expo/accepted`: `{"accepted": [...], "sendSizes": [n, ...], "statusCounts": {...}}`,
///   each notification with its `to`, `ticketId`, `message` (its fields as sent) and `receivedAt`,
///   oldest first.
/// - `POST /admin/expo/faults` with `{"token", "fault", "retryAfter"?, "delayMilliseconds"?,
///   "times"?}`, `fault` one of `deviceNotRegisteredTicket`, `deviceNotRegisteredReceipt`,
///   `messageRateExceeded`, `messageRateExceededReceipt`, `tooManyRequests`, `unavailable`, `delay`, `dropConnection`, `none`
///   (clears): 204.
/// - `DELETE /admin/expo/faults`: clears every fault, 204.
///
/// Mistakes answer 400 or 404 with `{"error": "..."}`.
struct ExpoAdmin {
    static let prefix = "/admin/expo/"

    /// A fault as the admin endpoint takes it.
    private struct FaultRequest: Decodable {
        var token: String
        var fault: String
        var retryAfter: Int?
        var delayMilliseconds: Int?
        var times: Int?
    }

    let sandbox: ExpoSandbox

    func respond(to request: HTTP2Request) -> HTTP2Response {
        switch (request.method, request.path.split(separator: "?").first.map(String.init) ?? "") {
        case ("GET", Self.prefix + "accepted"): return listAccepted()
        case ("POST", Self.prefix + "faults"): return setFault(request.body)
        case ("DELETE", Self.prefix + "faults"):
            sandbox.clearFaults()
            return HTTP2Response(status: 204)
        default: return ExpoSandbox.json(404, ["error": "no admin route \(request.method) \(request.path.prefix(100))"])
        }
    }

    private func listAccepted() -> HTTP2Response {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let accepted: [[String: Any]] = sandbox.accepted.map { message in
            let fields = (try? JSONEncoder().encode(message.fields)).flatMap {
                try? JSONSerialization.jsonObject(with: $0)
            }
            return [
                "to": message.to, "ticketId": message.ticketID, "message": fields ?? [:],
                "receivedAt": formatter.string(from: message.receivedAt),
            ]
        }
        let counts = Dictionary(uniqueKeysWithValues: sandbox.statusCounts.map { (String($0.key), $0.value) })
        return ExpoSandbox.json(200, ["accepted": accepted, "sendSizes": sandbox.sendSizes, "statusCounts": counts])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        guard let request = try? JSONDecoder().decode(FaultRequest.self, from: Data(body)) else {
            return ExpoSandbox.json(400, ["error": "expected {token, fault, retryAfter?, delayMilliseconds?, times?}"])
        }
        if let times = request.times, times < 1 { return ExpoSandbox.json(400, ["error": "times must be at least 1"]) }
        let fault: ExpoFault
        switch request.fault {
        case "deviceNotRegisteredTicket": fault = .deviceNotRegisteredTicket
        case "deviceNotRegisteredReceipt": fault = .deviceNotRegisteredReceipt
        case "messageRateExceeded": fault = .messageRateExceeded
        case "messageRateExceededReceipt": fault = .messageRateExceededReceipt
        case "tooManyRequests": fault = .tooManyRequests(retryAfter: max(0, request.retryAfter ?? 1))
        case "unavailable": fault = .unavailable
        case "delay": fault = .delay(.milliseconds(max(0, request.delayMilliseconds ?? 1_000)))
        case "dropConnection": fault = .dropConnection
        case "none":
            sandbox.clearFault(for: request.token)
            return HTTP2Response(status: 204)
        default: return ExpoSandbox.json(400, ["error": "unknown fault \(request.fault.prefix(40))"])
        }
        sandbox.setFault(fault, for: request.token, times: request.times)
        return HTTP2Response(status: 204)
    }
}
