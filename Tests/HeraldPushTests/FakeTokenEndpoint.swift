import Foundation
import HeraldCrypto
import HeraldPush
import Synchronization
import Testing

/// An OAuth2 token endpoint as strict as Google's: it takes only a form-encoded JWT-bearer
/// grant whose RS256 assertion the account's public key verifies, with the FCM scope, the
/// endpoint as audience, the right kid and a one-hour lifetime issued now.
final class FakeTokenEndpoint: Sendable {
    struct State {
        var calls = 0
        var held = false
        var answer: HTTP2Response?
    }

    let url = URL(string: "https://oauth2.example.test/token")!
    let publicKey: SigningKey
    let account: FCMServiceAccount
    let clock: TestClock
    let state = Mutex(State())
    private let gate = AsyncStream<Void>.makeStream()

    init(clock: TestClock) throws {
        let key = try SigningKey.generateRSA()
        publicKey = try key.publicKey()
        account = FCMServiceAccount(
            projectID: "herald-test", privateKeyID: "key-1", privateKey: key,
            clientEmail: "herald@herald-test.iam.gserviceaccount.com", tokenURI: url)
        self.clock = clock
    }

    var calls: Int { state.withLock { $0.calls } }

    /// Holds every exchange until ``release()``.
    func hold() { state.withLock { $0.held = true } }

    /// Lets held exchanges answer.
    func release() { gate.continuation.finish() }

    /// Answers the next exchanges with `response` instead of a token.
    func answer(_ response: HTTP2Response?) { state.withLock { $0.answer = response } }

    /// The exchange closure for ``FCMAccessTokenCache``.
    var exchange: HTTP2Exchange { { try await self.handle($0) } }

    private func handle(_ request: HTTP2Request) async throws -> HTTP2Response {
        let (call, held, answer) = state.withLock { state in
            state.calls += 1
            return (state.calls, state.held, state.answer)
        }
        if held { for await _ in gate.stream {} }
        if let answer { return answer }
        if let problem = problem(with: request) {
            return HTTP2Response(
                status: 400, headers: [HTTP2Header("content-type", "application/json")],
                body: Array(#"{"error":"invalid_grant","error_description":"\#(problem)"}"#.utf8))
        }
        let body = #"{"access_token":"ya29.token-\#(call)","expires_in":3599,"token_type":"Bearer"}"#
        return HTTP2Response(
            status: 200, headers: [HTTP2Header("content-type", "application/json")], body: Array(body.utf8))
    }

    /// What Google would refuse in `request`, or nil.
    private func problem(with request: HTTP2Request) -> String? {
        guard request.method == "POST", request.url == url.absoluteString else { return "wrong method or URL" }
        guard request.header("content-type") == "application/x-www-form-urlencoded" else { return "not a form" }
        guard let fields = FormEncoding.decode(String(decoding: request.body, as: UTF8.self)),
            fields.map(\.0) == ["grant_type", "assertion"], fields[0].1 == FCMAccessTokenCache.grantType
        else { return "Invalid grant_type" }
        guard let verified = try? JWT.verify(fields[1].1, key: publicKey, claims: ServiceAccountAssertionClaims.self)
        else { return "Invalid JWT Signature." }
        let claims = verified.claims
        let now = Int64(clock.now.timeIntervalSince1970)
        guard verified.header == JWTHeader(alg: .rs256, kid: "key-1") else { return "wrong kid" }
        guard claims.iss == account.clientEmail, claims.aud == url.absoluteString,
            claims.scope == "https://www.googleapis.com/auth/firebase.messaging"
        else { return "Invalid JWT claims" }
        guard claims.exp == claims.iat + 3_600, abs(claims.iat - now) <= 60 else {
            return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe"
        }
        return nil
    }
}
