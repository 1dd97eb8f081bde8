import FoundationEssentials
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

    let sandbox: ExpoSandbox

    func respond(to request: HTTP2Request) -> HTTP2Response {
        switch (request.method, request.path.split(separator: "?").first.map(String.init) ?? "") {
        case ("GET", Self.prefix + "accepted"): return listAccepted()
        case ("POST", Self.prefix + "faults"): return setFault(request.body)
        case ("DELETE", Self.prefix + "faults"):
            sandbox.clearFaults()
            return HTTP2Response(status: 204)
        default: return SandboxAdmin.noRoute(request)
        }
    }

    private func listAccepted() -> HTTP2Response {
        let formatter = SandboxAdmin.timestampFormatter()
        let accepted: [[String: Any]] = sandbox.accepted.map { message in
            let fields = (try? JSONEncoder().encode(message.fields)).flatMap { JSONValue.object($0) }
            return [
                "to": message.to, "ticketId": message.ticketID, "message": fields ?? [:],
                "receivedAt": formatter.format(message.receivedAt),
            ]
        }
        let counts = SandboxAdmin.statusCounts(sandbox.statusCounts)
        return HTTP2Response.json(200, ["accepted": accepted, "sendSizes": sandbox.sendSizes, "statusCounts": counts])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        let request: AdminFaultRequest
        do {
            request = try AdminFaultRequest(body, tokenKey: "token")
        } catch {
            return error.response
        }
        let fault: ExpoFault
        switch request.fault {
        case "deviceNotRegisteredTicket": fault = .deviceNotRegisteredTicket
        case "deviceNotRegisteredReceipt": fault = .deviceNotRegisteredReceipt
        case "messageRateExceeded": fault = .messageRateExceeded
        case "messageRateExceededReceipt": fault = .messageRateExceededReceipt
        case "tooManyRequests": fault = .tooManyRequests(retryAfter: request.retryAfter)
        case "unavailable": fault = .unavailable
        case "delay": fault = .delay(request.delay)
        case "dropConnection": fault = .dropConnection
        case "none":
            sandbox.clearFault(for: request.token)
            return HTTP2Response(status: 204)
        default: return request.unknownFault
        }
        sandbox.setFault(fault, for: request.token, times: request.times)
        return HTTP2Response(status: 204)
    }
}
