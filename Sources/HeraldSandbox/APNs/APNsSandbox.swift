import FoundationEssentials
import HeraldCrypto
import Synchronization

/// The APNs look-alike: a handler for ``HTTP2Server`` that answers `POST /3/device/<token>` as
/// strictly as Apple's servers do, records what it accepts and misbehaves on demand per token.
///
/// ```swift
/// let apns = APNsSandbox(credentials: try SandboxCredentials.loadOrCreate(in: directory))
/// let server = try HTTP2Server.start(configuration: .init(tls: credentials.tls), answering: apns.answer)
/// ```
public final class APNsSandbox: Sendable {
    /// The topic accepted (with the push types' suffixes); others get `TopicDisallowed`.
    public let bundleID: String
    private let reader: APNsRequestReader
    private let clock: @Sendable () -> Date
    private let state: Mutex<APNsSandboxState>

    /// A sandbox that takes provider tokens signed by `publicKey` (P-256) with key id `keyID` and
    /// issuer `teamID`, for pushes to `bundleID`. It keeps the last `acceptedLimit` notifications;
    /// `clock` tells the time (tests inject their own).
    public init(
        publicKey: SigningKey, keyID: String, teamID: String, bundleID: String, acceptedLimit: Int = 10_000,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        precondition(publicKey.kind == .p256, "APNs provider tokens are ES256: the key must be P-256")
        precondition(acceptedLimit > 0, "the sandbox must keep at least one accepted notification")
        self.bundleID = bundleID
        self.reader = APNsRequestReader(
            bundleID: bundleID, auth: APNsProviderAuth(publicKey: publicKey, keyID: keyID, teamID: teamID))
        self.clock = clock
        self.state = Mutex(APNsSandboxState(acceptedLimit: acceptedLimit))
    }

    /// A sandbox for the key, ids and bundle id of `credentials`.
    public convenience init(credentials: SandboxCredentials, clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.init(
            publicKey: try credentials.key.publicKey(), keyID: credentials.keyID, teamID: credentials.teamID,
            bundleID: credentials.bundleID, clock: clock)
    }

    /// The answer to one request: the server's handler. Paths under `/admin/apns/` are the admin
    /// endpoint (`GET /admin/apns/accepted`, `POST` and `DELETE /admin/apns/faults`); every other
    /// request is a push. Only a delay fault makes the answer wait.
    @Sendable public func answer(to request: HTTP2Request) -> HTTP2Answer {
        if request.path.hasPrefix(APNsAdmin.prefix) { return .now(APNsAdmin(sandbox: self).respond(to: request)) }
        guard request.version == .http2 else {
            // APNs speaks HTTP/2 only ("the provider API uses HTTP/2").
            return .now(.json(505, ["reason": "APNs takes HTTP/2 only; this request came over HTTP/1.1."]))
        }
        let now = clock()
        let notification: APNsNotification
        do {
            notification = try reader.read(request, now: now)
        } catch {
            return .now(refuse(error.reason, apnsID: error.apnsID))
        }
        if let rule = state.withLock({ $0.faults.take(for: notification.deviceToken) }) {
            let apnsID = notification.apnsID
            switch rule.fault {
            case .unregistered:
                let millis = Int64(rule.setAt.timeIntervalSince1970 * 1000)
                return .now(refuse(.unregistered, apnsID: apnsID, timestamp: millis))
            case .badDeviceToken: return .now(refuse(.badDeviceToken, apnsID: apnsID))
            case .tooManyRequests(let seconds):
                return .now(
                    refuse(.tooManyRequests, apnsID: apnsID, extra: [HTTP2Header("retry-after", "\(seconds)")]))
            case .serviceUnavailable: return .now(refuse(.serviceUnavailable, apnsID: apnsID))
            case .dropConnection: return .now(.dropConnection)
            case .delay(let duration):
                return .later { [self] in
                    try? await Task.sleep(for: duration)
                    return accept(notification)
                }
            }
        }
        return .now(accept(notification))
    }

    /// ``answer(to:)``, waited for.
    @Sendable public func respond(to request: HTTP2Request) async -> HTTP2Response {
        await answer(to: request).response
    }

    /// Records `notification` as accepted and answers 200.
    private func accept(_ notification: APNsNotification) -> HTTP2Response {
        state.withLock { state in
            state.accepted.append(notification)
            state.statusCounts[200, default: 0] += 1
        }
        // A push whose answer never left (its connection dropped meanwhile) was not accepted:
        // the provider cannot know, and sends it again.
        return HTTP2Response(
            status: 200,
            headers: [HTTP2Header("apns-id", notification.apnsID), HTTP2Header("apns-unique-id", RandomUUID.make())],
            whenUnanswered: { [self] in state.withLock { $0.forget(notification) } })
    }

    private func refuse(
        _ reason: APNsReason, apnsID: String?, timestamp: Int64? = nil, extra: [HTTP2Header] = []
    ) -> HTTP2Response {
        state.withLock { $0.statusCounts[reason.status, default: 0] += 1 }
        let body = #"{"reason":"\#(reason.name)""# + (timestamp.map { #","timestamp":\#($0)"# } ?? "") + "}"
        let headers =
            [HTTP2Header("content-type", "application/json; charset=utf-8")]
            + (apnsID.map { [HTTP2Header("apns-id", $0)] } ?? []) + extra
        return HTTP2Response(status: reason.status, headers: headers, body: Array(body.utf8))
    }

    // MARK: Faults

    /// Makes requests to `deviceToken` meet `fault`: for the next `times` requests, or until
    /// cleared when nil. Replaces the token's previous fault.
    public func setFault(_ fault: APNsFault, for deviceToken: String, times: Int? = nil) {
        precondition(times.map { $0 > 0 } ?? true, "a fault applies to at least one request")
        let now = clock()
        state.withLock { $0.faults.set(fault, for: deviceToken, at: now, times: times) }
    }

    /// Refuses the provider token `token` from now on with 403 `InvalidProviderToken`, as APNs
    /// does a token it stopped trusting; the sender may sign a new one at once.
    public func invalidateProviderToken(_ token: String) {
        reader.auth.invalidate(token)
    }

    /// The fault still set for `deviceToken`, without counting a request: nil once a fault set
    /// for some `times` has met them all.
    public func fault(for deviceToken: String) -> APNsFault? {
        state.withLock { $0.faults.peek(deviceToken) }
    }

    /// Ends the fault of `deviceToken`.
    public func clearFault(for deviceToken: String) {
        state.withLock { $0.faults.clear(deviceToken) }
    }

    /// Ends every fault.
    public func clearFaults() {
        state.withLock { $0.faults.clearAll() }
    }

    // MARK: What arrived

    /// The accepted notifications, oldest first (the most recent ones, up to the limit).
    public var accepted: [APNsNotification] { state.withLock { $0.accepted.entries } }

    /// The accepted notifications sent to `deviceToken`, oldest first.
    public func accepted(for deviceToken: String) -> [APNsNotification] {
        state.withLock { $0.accepted.entries.filter { $0.deviceToken == deviceToken } }
    }

    /// How many requests got each HTTP status, since start (dropped connections count none).
    public var statusCounts: [Int: Int] { state.withLock { $0.statusCounts } }
}
