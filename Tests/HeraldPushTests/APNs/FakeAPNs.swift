import Foundation
import HeraldCrypto
import HeraldPush
import HeraldSandbox

/// APNs as strict as Apple's: the sandbox's APNs look-alike (``APNsSandbox``, whose request
/// reader holds Apple's rules: path, headers, the ES256 provider token the team's public key
/// verifies, the payload) answers every request to `https://apns.example.test`, in process and
/// on the test clock. Scripted answers replace the 200 of the next valid requests.
final class FakeAPNs: Sendable {
    static let baseURL = "https://apns.example.test"
    static let topic = "com.example.herald"
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"

    let sandbox: APNsSandbox
    private let recorder = SandboxRecorder()

    init(publicKey: SigningKey, clock: TestClock) {
        sandbox = APNsSandbox(
            publicKey: publicKey, keyID: Self.keyID, teamID: Self.teamID, bundleID: Self.topic, clock: clock.closure)
    }

    /// The exchange closure for ``APNsClient``.
    var exchange: HTTP2Exchange {
        { request in
            await self.recorder.answer(request, at: Self.baseURL) { await self.sandbox.respond(to: $0) }
        }
    }

    var received: [HTTP2Request] { recorder.received }

    /// What APNs refused, as status and body.
    var refusals: [String] { recorder.refusals }

    /// Answers the next valid request with `status` and, unless nil, `{"reason": reason}`.
    func script(_ status: Int, reason: String?, headers: [HTTP2Header] = []) {
        let body = reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? []
        recorder.script(HTTP2Response(status: status, headers: headers, body: body))
    }

    /// Refuses the provider token `token` from now on with 403 `InvalidProviderToken`.
    func refuse(_ token: String) { sandbox.invalidateProviderToken(token) }
}
