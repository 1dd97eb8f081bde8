import Foundation
import HeraldPush
import HeraldSandbox

/// FCM HTTP v1 behind a strict token endpoint: token requests go to a ``FakeTokenEndpoint``;
/// sends to `https://fcm.example.test` go to the same sandbox look-alike (``FCMSandbox``, whose
/// checks are Google's: the path and project, an access token that endpoint issued and that was
/// not revoked, a JSON content type, and a `{"message": {...}}` body as FCM reads it). Scripted
/// answers replace the 200 of the next valid sends.
final class FakeFCM: Sendable {
    static let baseURL = "https://fcm.example.test"

    let tokens: FakeTokenEndpoint
    private let recorder = SandboxRecorder()

    init(clock: TestClock) throws {
        tokens = try FakeTokenEndpoint(clock: clock)
    }

    /// The look-alike that answers the sends and issued the tokens.
    var sandbox: FCMSandbox { tokens.sandbox }

    /// Every send that arrived (token requests not included).
    var received: [HTTP2Request] { recorder.received }

    /// What FCM refused, as status and body.
    var refusals: [String] { recorder.refusals }

    /// The exchange closure for ``FCMClient`` and its token cache.
    var exchange: HTTP2Exchange {
        { request in
            if request.url == self.tokens.url.absoluteString { return try await self.tokens.exchange(request) }
            return await self.recorder.answer(request, at: Self.baseURL) { await self.sandbox.respond(to: $0) }
        }
    }

    /// Answers the next valid send with `status` and `body`.
    func script(_ status: Int, body: [UInt8], headers: [HTTP2Header] = []) {
        recorder.script(HTTP2Response(status: status, headers: headers, body: body))
    }

    /// Revokes every access token issued so far: the next send with one gets 401 `UNAUTHENTICATED`.
    func revokeAccessTokens() { sandbox.revokeAccessTokens() }

    /// The access token a send carried.
    static func bearer(_ request: HTTP2Request) -> String? {
        request.header("authorization").map { String($0.dropFirst("Bearer ".count)) }
    }
}
