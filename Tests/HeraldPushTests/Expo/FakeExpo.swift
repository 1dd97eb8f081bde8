import Foundation
import HeraldPush
import HeraldSandbox

/// The Expo push service as strict as Expo's: the sandbox's Expo look-alike (``ExpoSandbox``,
/// whose request reader holds Expo's rules: `POST` of 1 to 100 messages to
/// `/--/api/v2/push/send`, `{"ids": [...]}` of at most 1,000 to `/--/api/v2/push/getReceipts`,
/// the content type and, with an access token, `Authorization: Bearer`) answers every request
/// to `https://expo.example.test`, in process. Scripted answers replace the next valid ones.
final class FakeExpo: Sendable {
    static let baseURL = "https://expo.example.test"

    let sandbox: ExpoSandbox
    private let recorder = SandboxRecorder()

    init(accessToken: String? = nil) {
        sandbox = ExpoSandbox(accessToken: accessToken)
    }

    var exchange: HTTP2Exchange {
        { request in
            await self.recorder.answer(request, at: Self.baseURL) { await self.sandbox.respond(to: $0) }
        }
    }

    var received: [HTTP2Request] { recorder.received }

    /// What Expo refused, as status and body.
    var refusals: [String] { recorder.refusals }

    /// The ticket ids handed out, in order.
    var tickets: [String] { sandbox.accepted.map(\.ticketID) }

    /// Answers the next valid request with `status`, `body` and `headers`.
    func script(_ status: Int, _ body: String, headers: [HTTP2Header] = []) {
        recorder.script(HTTP2Response(status: status, headers: headers, body: Array(body.utf8)))
    }
}
