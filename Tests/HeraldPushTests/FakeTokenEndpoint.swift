import Foundation
import HeraldCrypto
import HeraldPush
import HeraldSandbox
import Synchronization
import Testing

/// An OAuth2 token endpoint as strict as Google's: the sandbox's FCM look-alike (``FCMSandbox``,
/// whose token endpoint holds Google's rules for a form-encoded JWT-bearer grant: the RS256
/// assertion the account's public key verifies, its kid, issuer, audience, scope and lifetime)
/// answers every token request, in process and on the test clock. The same look-alike takes
/// the sends of ``FakeFCM``, with the access tokens it issued.
final class FakeTokenEndpoint: Sendable {
    struct State {
        var calls = 0
        var held = false
        var answer: HTTP2Response?
        /// The access tokens issued, in order.
        var issued: [String] = []
    }

    let url = URL(string: "https://oauth2.example.test/token")!
    let account: FCMServiceAccount
    /// Google's token endpoint and FCM, as the sandbox has them.
    let sandbox: FCMSandbox
    let state = Mutex(State())
    private let gate = AsyncStream<Void>.makeStream()

    init(clock: TestClock) throws {
        let key = try SigningKey.generateRSA()
        account = FCMServiceAccount(
            projectID: "herald-test", privateKeyID: "key-1", privateKey: key,
            clientEmail: "herald@herald-test.iam.gserviceaccount.com", tokenURI: url)
        sandbox = FCMSandbox(
            publicKey: try key.publicKey(), keyID: account.privateKeyID, clientEmail: account.clientEmail,
            projectID: account.projectID, clock: clock.closure)
    }

    var calls: Int { state.withLock { $0.calls } }

    /// The access tokens issued so far, first first.
    var issued: [String] { state.withLock { $0.issued } }

    /// Holds every exchange until ``release()``.
    func hold() { state.withLock { $0.held = true } }

    /// Lets held exchanges answer.
    func release() { gate.continuation.finish() }

    /// Answers the next exchanges with `response` instead of a token.
    func answer(_ response: HTTP2Response?) { state.withLock { $0.answer = response } }

    /// The exchange closure for ``FCMAccessTokenCache``.
    var exchange: HTTP2Exchange { { await self.handle($0) } }

    private func handle(_ request: HTTP2Request) async -> HTTP2Response {
        let (held, answer) = state.withLock { state in
            state.calls += 1
            return (state.held, state.answer)
        }
        if held { for await _ in gate.stream {} }
        if let answer { return answer }
        guard request.url == url.absoluteString else { return HTTP2Response(status: 404) }
        let response = await sandbox.respond(to: request)
        let token = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["access_token"]
        if response.status == 200, let token = token as? String { state.withLock { $0.issued.append(token) } }
        return response
    }
}
