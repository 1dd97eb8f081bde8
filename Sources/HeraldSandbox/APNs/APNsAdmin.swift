import FoundationEssentials

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

    let sandbox: APNsSandbox

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
        let accepted: [[String: Any]] = sandbox.accepted.map { notification in
            var entry: [String: Any] = [
                "deviceToken": notification.deviceToken, "apnsId": notification.apnsID, "topic": notification.topic,
                "pushType": notification.pushType, "priority": notification.priority,
                "headers": Dictionary(notification.headers.map { ($0.name, $0.value) }) { first, _ in first },
                "payload": notification.payloadObject,
                "receivedAt": formatter.format(notification.receivedAt),
            ]
            entry["collapseId"] = notification.collapseID
            entry["expiration"] = notification.expiration
            return entry
        }
        let counts = SandboxAdmin.statusCounts(sandbox.statusCounts)
        return HTTP2Response.json(200, ["accepted": accepted, "statusCounts": counts])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        let request: AdminFaultRequest
        do {
            request = try AdminFaultRequest(body, tokenKey: "deviceToken")
        } catch {
            return error.response
        }
        let fault: APNsFault
        switch request.fault {
        case "unregistered": fault = .unregistered
        case "badDeviceToken": fault = .badDeviceToken
        case "tooManyRequests": fault = .tooManyRequests(retryAfter: request.retryAfter)
        case "serviceUnavailable": fault = .serviceUnavailable
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
