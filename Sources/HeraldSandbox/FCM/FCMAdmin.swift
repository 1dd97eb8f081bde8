import FoundationEssentials

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
        default: return SandboxAdmin.noRoute(request)
        }
    }

    private func listAccepted() -> HTTP2Response {
        let formatter = SandboxAdmin.timestampFormatter()
        let accepted: [[String: Any]] = sandbox.accepted.map { message in
            [
                "token": message.token, "name": message.name, "accessToken": message.accessToken,
                "message": message.message, "receivedAt": formatter.format(message.receivedAt),
            ]
        }
        let counts = SandboxAdmin.statusCounts(sandbox.statusCounts)
        return HTTP2Response.json(
            200, ["accepted": accepted, "statusCounts": counts, "tokenExchanges": sandbox.tokenExchanges])
    }

    private func setFault(_ body: [UInt8]) -> HTTP2Response {
        let request: AdminFaultRequest
        do {
            request = try AdminFaultRequest(body, tokenKey: "deviceToken")
        } catch {
            return error.response
        }
        let fault: FCMFault
        switch request.fault {
        case "unregistered": fault = .unregistered
        case "senderIdMismatch": fault = .senderIdMismatch
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
