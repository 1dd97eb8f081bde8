import Foundation
import HeraldCrypto
import HeraldModel
import HeraldPush
import Synchronization

/// APNs as strict as Apple's: it answers 200 only to a `POST /3/device/<hex token>` signed
/// with an ES256 provider token the team's public key verifies, carrying every header of the
/// contract with valid values and a JSON body of at most 4 KB; anything else gets the status
/// and `reason` Apple would send. Scripted answers replace the 200 of the next requests.
final class FakeAPNs: Sendable {
    static let baseURL = "https://apns.example.test"
    static let topic = "com.example.herald"
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"

    struct State {
        /// Answers for the next requests, first first; a 200 with `apns-id` when empty.
        var script: [HTTP2Response] = []
        /// Provider tokens refused with `InvalidProviderToken` (revoked keys, say).
        var refused: Set<String> = []
        /// Every request that arrived, valid or not.
        var received: [HTTP2Request] = []
    }

    let publicKey: SigningKey
    let clock: TestClock
    let state = Mutex(State())

    init(publicKey: SigningKey, clock: TestClock) {
        self.publicKey = publicKey
        self.clock = clock
    }

    /// The exchange closure for ``APNsClient``.
    var exchange: HTTP2Exchange { { self.handle($0) } }

    var received: [HTTP2Request] { state.withLock { $0.received } }

    /// Answers the next request with `status` and, unless nil, `{"reason": reason}`.
    func script(_ status: Int, reason: String?, headers: [HTTP2Header] = []) {
        let body = reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? []
        state.withLock { $0.script.append(HTTP2Response(status: status, headers: headers, body: body)) }
    }

    /// Refuses `token` from now on with 403 `InvalidProviderToken`.
    func refuse(_ token: String) { _ = state.withLock { $0.refused.insert(token) } }

    private func handle(_ request: HTTP2Request) -> HTTP2Response {
        let (scripted, refused) = state.withLock { state in
            state.received.append(request)
            return (state.script.isEmpty ? nil : state.script.removeFirst(), state.refused)
        }
        if let (status, reason) = problem(with: request, refused: refused) {
            return HTTP2Response(status: status, body: Array(#"{"reason":"\#(reason)"}"#.utf8))
        }
        if let scripted { return scripted }
        return HTTP2Response(status: 200, headers: [HTTP2Header("apns-id", request.header("apns-id") ?? "")])
    }

    /// The status and reason Apple would answer `request` with, or nil when it is valid.
    func problem(with request: HTTP2Request, refused: Set<String> = []) -> (Int, String)? {
        guard request.method == "POST" else { return (405, "MethodNotAllowed") }
        let prefix = Self.baseURL + "/3/device/"
        guard request.url.hasPrefix(prefix) else { return (404, "BadPath") }
        let token = request.url.dropFirst(prefix.count)
        guard !token.isEmpty else { return (400, "MissingDeviceToken") }
        guard token.count >= 64, token.allSatisfy(\.isHexDigit) else { return (400, "BadDeviceToken") }
        let names = request.headers.map { $0.name.lowercased() }
        guard Set(names).count == names.count else { return (400, "DuplicateHeaders") }
        if let problem = authorizationProblem(request.header("authorization"), refused: refused) {
            return (403, problem)
        }
        return headerProblem(request).map { (400, $0) } ?? bodyProblem(request.body)
    }

    private func authorizationProblem(_ value: String?, refused: Set<String>) -> String? {
        guard let value, value.hasPrefix("bearer ") else { return "MissingProviderToken" }
        let token = String(value.dropFirst("bearer ".count))
        guard !refused.contains(token),
            let verified = try? JWT.verify(token, key: publicKey, claims: APNsProviderClaims.self),
            verified.header == JWTHeader(alg: .es256, kid: Self.keyID), verified.claims.iss == Self.teamID
        else { return "InvalidProviderToken" }
        let age = Int64(clock.now.timeIntervalSince1970) - verified.claims.iat
        return (0..<3_600).contains(age) ? nil : "ExpiredProviderToken"
    }

    private func headerProblem(_ request: HTTP2Request) -> String? {
        guard request.header("apns-push-type") == "alert" else { return "InvalidPushType" }
        guard let topic = request.header("apns-topic") else { return "MissingTopic" }
        guard topic == Self.topic else { return "BadTopic" }
        guard ["10", "5"].contains(request.header("apns-priority") ?? "10") else { return "BadPriority" }
        if let id = request.header("apns-id"), UUID(uuidString: id) == nil || id != id.lowercased() {
            return "BadMessageId"
        }
        if let expiration = request.header("apns-expiration"), Int64(expiration) == nil {
            return "BadExpirationDate"
        }
        if let collapse = request.header("apns-collapse-id"), collapse.utf8.count > 64 { return "BadCollapseId" }
        return nil
    }

    private func bodyProblem(_ body: [UInt8]) -> (Int, String)? {
        guard !body.isEmpty else { return (400, "PayloadEmpty") }
        guard body.count <= 4_096 else { return (413, "PayloadTooLarge") }
        // Apple documents no reason for a body that is not the JSON of a push; this one is ours.
        guard (try? JSONDecoder().decode(APNsPayload.self, from: Data(body))) != nil else { return (400, "BadPayload") }
        return nil
    }
}
