import Foundation
import HeraldCrypto
import HeraldPush
import Synchronization

/// FCM HTTP v1 behind a strict token endpoint: token requests go to a ``FakeTokenEndpoint``;
/// a send must be a `POST` to the project's `messages:send` with `authorization: Bearer` of a
/// token that endpoint issued and that was not revoked, a JSON content type and a body of
/// `{"message": {...}}` with a token. Scripted answers replace the 200 of the next sends.
final class FakeFCM: Sendable {
    static let baseURL = "https://fcm.example.test"

    struct State {
        var script: [HTTP2Response] = []
        var revoked: Set<String> = []
        /// Every send that arrived (token requests not included).
        var received: [HTTP2Request] = []
    }

    let tokens: FakeTokenEndpoint
    let state = Mutex(State())

    init(clock: TestClock) throws {
        tokens = try FakeTokenEndpoint(clock: clock)
    }

    var received: [HTTP2Request] { state.withLock { $0.received } }

    /// The exchange closure for ``FCMClient`` and its token cache.
    var exchange: HTTP2Exchange {
        { request in
            if request.url == self.tokens.url.absoluteString { return try await self.tokens.exchange(request) }
            return self.handle(request)
        }
    }

    /// Answers the next send with `status` and `body`.
    func script(_ status: Int, body: [UInt8], headers: [HTTP2Header] = []) {
        state.withLock { $0.script.append(HTTP2Response(status: status, headers: headers, body: body)) }
    }

    /// Refuses `token` from now on with 401 `UNAUTHENTICATED`.
    func revoke(_ token: String) { _ = state.withLock { $0.revoked.insert(token) } }

    /// The access token a send carried.
    static func bearer(_ request: HTTP2Request) -> String? {
        request.header("authorization").map { String($0.dropFirst("Bearer ".count)) }
    }

    private func handle(_ request: HTTP2Request) -> HTTP2Response {
        let (scripted, revoked) = state.withLock { state in
            state.received.append(request)
            return (state.script.isEmpty ? nil : state.script.removeFirst(), state.revoked)
        }
        if let bearer = Self.bearer(request), revoked.contains(bearer) {
            return HTTP2Response(
                status: 401, body: FCMResponseTableTests.body(401, "UNAUTHENTICATED", "invalid credentials"))
        }
        if let problem = problem(with: request) {
            return HTTP2Response(
                status: 400, body: FCMResponseTableTests.body(400, "INVALID_ARGUMENT", problem))
        }
        return scripted
            ?? HTTP2Response(
                status: 200, headers: [HTTP2Header("content-type", "application/json")],
                body: Array(#"{"name":"projects/herald-test/messages/0:42"}"#.utf8))
    }

    /// What FCM would refuse in `request`, or nil.
    func problem(with request: HTTP2Request) -> String? {
        guard request.method == "POST", request.url == Self.baseURL + "/v1/projects/herald-test/messages:send" else {
            return "wrong method or URL \(request.url)"
        }
        guard let bearer = Self.bearer(request), request.header("authorization")?.hasPrefix("Bearer ya29.") == true,
            !bearer.isEmpty
        else { return "no bearer token" }
        guard request.header("content-type")?.hasPrefix("application/json") == true else { return "not JSON" }
        guard let root = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            root.count == 1, let message = root["message"] as? [String: Any], message["token"] is String
        else { return "not a message with a token" }
        return nil
    }
}
