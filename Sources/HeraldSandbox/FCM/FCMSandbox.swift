import FoundationEssentials
import HeraldCrypto
import Synchronization

/// The FCM HTTP v1 look-alike: an OAuth2 token endpoint (`POST /token`) and
/// `POST /v1/projects/{project}/messages:send`, as strict as Google's; it records what it accepts
/// and misbehaves on demand per registration token.
///
/// ```swift
/// let fcm = try FCMSandbox(credentials: credentials)
/// let server = try HTTP2Server.start(configuration: .init(tls: credentials.tls), answering: SandboxRouter(fcm.routes).answer)
/// ```
public final class FCMSandbox: Sendable {
    /// The Firebase project messages are accepted for; others get 403 `PERMISSION_DENIED`.
    public let projectID: String
    private let tokenEndpoint: FCMTokenEndpoint
    private let reader = FCMMessageReader()
    private let clock: @Sendable () -> Date
    private let state: Mutex<FCMSandboxState>

    /// A sandbox whose token endpoint takes assertions signed by `publicKey` (RSA) with key id
    /// `keyID` and issuer `clientEmail`, for messages to `projectID`. It keeps the last
    /// `acceptedLimit` messages; `clock` tells the time (tests inject their own).
    public init(
        publicKey: SigningKey, keyID: String, clientEmail: String, projectID: String, acceptedLimit: Int = 10_000,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        guard case .rsa = publicKey.kind else { preconditionFailure("service-account assertions are RS256") }
        precondition(acceptedLimit > 0, "the sandbox must keep at least one accepted message")
        self.projectID = projectID
        self.tokenEndpoint = FCMTokenEndpoint(publicKey: publicKey, keyID: keyID, clientEmail: clientEmail)
        self.clock = clock
        self.state = Mutex(FCMSandboxState(acceptedLimit: acceptedLimit))
    }

    /// A sandbox for the service account of `credentials`.
    public convenience init(credentials: SandboxCredentials, clock: @escaping @Sendable () -> Date = Date.init) throws {
        let account = credentials.fcm
        self.init(
            publicKey: try account.key.publicKey(), keyID: account.privateKeyID, clientEmail: account.clientEmail,
            projectID: account.projectID, clock: clock)
    }

    /// The routes of the FCM look-alike: the token endpoint, sends under `/v1/projects/`, the
    /// admin endpoint under `/admin/fcm/`.
    public var routes: [SandboxRouter.Route] {
        [
            SandboxRouter.Route(prefix: FCMTokenEndpoint.path, handler: answer),
            SandboxRouter.Route(prefix: "/v1/projects/", handler: answer),
            SandboxRouter.Route(prefix: FCMAdmin.prefix, handler: answer),
        ]
    }

    /// The answer to one request: the token endpoint, the admin endpoint (`GET
    /// /admin/fcm/accepted`, `POST` and `DELETE /admin/fcm/faults`, `DELETE
    /// /admin/fcm/access-tokens`) or a send. Only a delay fault makes the answer wait.
    @Sendable public func answer(to request: HTTP2Request) -> HTTP2Answer {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        if path.hasPrefix(FCMAdmin.prefix) { return .now(FCMAdmin(sandbox: self).respond(to: request)) }
        let now = clock()
        if path == FCMTokenEndpoint.path { return .now(tokenEndpoint.respond(to: request, now: now)) }
        let read: FCMMessageReader.Read
        do {
            read = try check(request, path: path, now: now)
        } catch {
            return .now(answer(error))
        }
        if read.validateOnly {
            return .now(
                answer(FCMReply(status: 200, object: ["name": "projects/\(projectID)/messages/fake_message_id"])))
        }
        if let rule = state.withLock({ $0.faults.take(for: read.token) }) {
            switch rule.fault {
            case .unregistered:
                return .now(answer(.fcmError(404, "NOT_FOUND", "UNREGISTERED", "Requested entity was not found.")))
            case .senderIdMismatch:
                return .now(answer(.fcmError(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", "SenderId mismatch")))
            case .tooManyRequests(let seconds):
                var reply = FCMReply.fcmError(
                    429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "Quota exceeded for quota metric 'Send requests'.")
                reply.headers = [HTTP2Header("retry-after", "\(seconds)")]
                return .now(answer(reply))
            case .unavailable:
                return .now(
                    answer(.fcmError(503, "UNAVAILABLE", "UNAVAILABLE", "The service is currently unavailable.")))
            case .dropConnection: return .now(.dropConnection)
            case .delay(let duration):
                let token = read.token
                return .later { [self] in
                    try? await Task.sleep(for: duration)
                    return accept(token: token, request: request, now: now)
                }
            }
        }
        return .now(accept(token: read.token, request: request, now: now))
    }

    /// ``answer(to:)``, waited for.
    @Sendable public func respond(to request: HTTP2Request) async -> HTTP2Response {
        await answer(to: request).response
    }

    /// Records the send to `token` as accepted and answers its message name.
    private func accept(token: String, request: HTTP2Request, now: Date) -> HTTP2Response {
        // Shaped like FCM's ids: `0:<microseconds>%<hex>`.
        let id = "0:\(Int64(now.timeIntervalSince1970 * 1_000_000))%\(Hex.encode(SecureRandom.bytes(count: 8)))"
        let message = FCMAcceptedMessage(
            token: token, name: "projects/\(projectID)/messages/\(id)",
            accessToken: String(request.header("authorization")?.dropFirst(7) ?? ""), body: request.body,
            receivedAt: now)
        state.withLock { state in
            state.accepted.append(message)
            state.statusCounts[200, default: 0] += 1
        }
        // A message whose answer never left (its connection dropped meanwhile) was not accepted:
        // the provider cannot know, and sends it again.
        var response = FCMReply(status: 200, object: ["name": message.name]).response
        response.whenUnanswered = { [self] in state.withLock { $0.forget(message) } }
        return response
    }

    /// The checks of a send, in Google's order: the path, the access token, the project, the body.
    private func check(_ request: HTTP2Request, path: String, now: Date) throws(FCMReply) -> FCMMessageReader.Read {
        let prefix = "/v1/projects/"
        let suffix = "/messages:send"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else {
            throw .status(404, "NOT_FOUND", "The requested URL \(path.prefix(100)) was not found.")
        }
        let project = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        guard request.method == "POST" else {
            throw .status(405, "METHOD_NOT_ALLOWED", "Method \(request.method) is not allowed.")
        }
        guard tokenEndpoint.authorizes(request.header("authorization"), now: now) else { throw .unauthenticated }
        guard project == projectID else {
            throw .status(
                403, "PERMISSION_DENIED",
                "Permission 'cloudmessaging.messages.create' denied on resource "
                    + "'//cloudresourcemanager.googleapis.com/projects/\(project.prefix(60))' (or it may not exist).")
        }
        guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
            throw .badRequest(field: "", "Invalid JSON payload received. The content type must be application/json.")
        }
        return try reader.read(request.body)
    }

    private func answer(_ reply: FCMReply) -> HTTP2Response {
        state.withLock { $0.statusCounts[reply.status, default: 0] += 1 }
        return reply.response
    }

    // MARK: Faults

    /// Makes sends to `token` meet `fault`: for the next `times` requests, or until cleared when
    /// nil. Replaces the token's previous fault.
    public func setFault(_ fault: FCMFault, for token: String, times: Int? = nil) {
        precondition(times.map { $0 > 0 } ?? true, "a fault applies to at least one request")
        let now = clock()
        state.withLock { $0.faults.set(fault, for: token, at: now, times: times) }
    }

    /// Ends the fault of `token`.
    public func clearFault(for token: String) {
        state.withLock { $0.faults.clear(token) }
    }

    /// Ends every fault.
    public func clearFaults() {
        state.withLock { $0.faults.clearAll() }
    }

    /// Forgets every access token issued so far: the next send with one gets 401
    /// `UNAUTHENTICATED`, as with a revoked credential.
    public func revokeAccessTokens() {
        tokenEndpoint.revokeAll()
    }

    // MARK: What arrived

    /// The accepted messages, oldest first (the most recent ones, up to the limit).
    public var accepted: [FCMAcceptedMessage] { state.withLock { $0.accepted.entries } }

    /// The accepted messages sent to `token`, oldest first.
    public func accepted(for token: String) -> [FCMAcceptedMessage] {
        state.withLock { $0.accepted.entries.filter { $0.token == token } }
    }

    /// How many sends got each HTTP status, since start (token requests and dropped connections
    /// count none).
    public var statusCounts: [Int: Int] { state.withLock { $0.statusCounts } }

    /// How many access tokens the token endpoint issued, since start.
    public var tokenExchanges: Int { tokenEndpoint.exchanges }
}
