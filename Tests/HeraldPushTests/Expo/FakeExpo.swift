import Foundation
import HeraldModel
import HeraldPush
import Synchronization

/// The Expo push service as strict as Expo's: it answers tickets only to a `POST` of a JSON
/// array of 1 to 100 messages to `/--/api/v2/push/send`, and receipts only to
/// `{"ids": [...]}` of at most 1,000 at `/--/api/v2/push/getReceipts`, each with
/// `content-type: application/json` and, when it has an access token, `Authorization: Bearer`;
/// anything else gets Expo's request error. Scripted answers replace the next ones.
final class FakeExpo: Sendable {
    static let baseURL = "https://expo.example.test"

    struct State {
        var script: [HTTP2Response] = []
        var received: [HTTP2Request] = []
        /// Ticket ids handed out, in order.
        var tickets: [String] = []
    }

    let accessToken: String?
    let state = Mutex(State())

    init(accessToken: String? = nil) {
        self.accessToken = accessToken
    }

    var exchange: HTTP2Exchange { { self.handle($0) } }
    var received: [HTTP2Request] { state.withLock { $0.received } }

    /// Answers the next request with `status`, `body` and `headers`.
    func script(_ status: Int, _ body: String, headers: [HTTP2Header] = []) {
        state.withLock { $0.script.append(HTTP2Response(status: status, headers: headers, body: Array(body.utf8))) }
    }

    private func handle(_ request: HTTP2Request) -> HTTP2Response {
        let scripted = state.withLock { state in
            state.received.append(request)
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        if let problem = problem(with: request) { return Self.error(problem.status, problem.code) }
        if let scripted { return scripted }
        if request.url.hasSuffix("/getReceipts") {
            return HTTP2Response(status: 200, body: Array(#"{"data":{}}"#.utf8))
        }
        let count = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [Any])?.count ?? 0
        let ids = (0..<count).map { _ in UUID().uuidString }
        state.withLock { $0.tickets += ids }
        let tickets = ids.map { #"{"status":"ok","id":"\#($0)"}"# }.joined(separator: ",")
        return HTTP2Response(status: 200, body: Array(#"{"data":[\#(tickets)]}"#.utf8))
    }

    /// What Expo would refuse in `request`, as a status and error code.
    func problem(with request: HTTP2Request) -> (status: Int, code: String)? {
        guard request.method == "POST" else { return (405, "METHOD_NOT_ALLOWED") }
        if let accessToken, request.header("authorization") != "Bearer \(accessToken)" { return (401, "UNAUTHORIZED") }
        guard request.header("content-type") == "application/json" else { return (400, "VALIDATION_ERROR") }
        let body = try? JSONSerialization.jsonObject(with: Data(request.body))
        switch request.url {
        case Self.baseURL + "/--/api/v2/push/send":
            guard let messages = body as? [[String: Any]], !messages.isEmpty else { return (400, "VALIDATION_ERROR") }
            guard messages.count <= 100 else { return (400, "PUSH_TOO_MANY_NOTIFICATIONS") }
            let valid = messages.allSatisfy { message in
                (message["to"] as? String).map { $0.hasPrefix("ExponentPushToken[") && $0.hasSuffix("]") } ?? false
            }
            return valid ? nil : (400, "VALIDATION_ERROR")
        case Self.baseURL + "/--/api/v2/push/getReceipts":
            guard let object = body as? [String: Any], let ids = object["ids"] as? [String], object.count == 1 else {
                return (400, "VALIDATION_ERROR")
            }
            return ids.count <= 1_000 ? nil : (400, "PUSH_TOO_MANY_RECEIPTS")
        default:
            return (404, "NOT_FOUND")
        }
    }

    static func error(_ status: Int, _ code: String) -> HTTP2Response {
        HTTP2Response(status: status, body: Array(#"{"errors":[{"code":"\#(code)","message":"\#(code)"}]}"#.utf8))
    }
}
