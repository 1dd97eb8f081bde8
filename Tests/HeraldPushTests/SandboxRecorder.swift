import HeraldPush
import Synchronization

/// What a fake provider shares that answers through a sandbox look-alike: every request that
/// arrived, the look-alike's refusals, and scripted answers that replace its next 200s (the
/// answers of a valid request that a test wants otherwise).
final class SandboxRecorder: Sendable {
    private struct State {
        var script: [HTTP2Response] = []
        var received: [HTTP2Request] = []
        var refusals: [String] = []
    }

    private let state = Mutex(State())

    /// Every request that arrived, valid or not.
    var received: [HTTP2Request] { state.withLock { $0.received } }

    /// Each answer but a 200 the look-alike gave, as status and body: none for a client that
    /// sends only what the provider takes.
    var refusals: [String] { state.withLock { $0.refusals } }

    /// Answers the next valid request with `response` instead of the look-alike's 200.
    func script(_ response: HTTP2Response) {
        state.withLock { $0.script.append(response) }
    }

    /// Records `request`, asks `lookAlike` (404 for a request elsewhere than `baseURL`, which
    /// never reaches the provider), and answers what it said or, for a 200, the next scripted
    /// answer.
    func answer(
        _ request: HTTP2Request, at baseURL: String, by lookAlike: (HTTP2Request) async -> HTTP2Response
    ) async -> HTTP2Response {
        state.withLock { $0.received.append(request) }
        let answer = request.url.hasPrefix(baseURL + "/") ? await lookAlike(request) : HTTP2Response(status: 404)
        return state.withLock { state in
            guard answer.status == 200 else {
                state.refusals.append("\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                return answer
            }
            return state.script.isEmpty ? answer : state.script.removeFirst()
        }
    }
}
