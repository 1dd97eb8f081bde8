import FoundationEssentials
import HeraldModel
import HeraldServerModel
import Synchronization

/// The Expo push service look-alike: a handler for ``HTTP2Server`` that answers
/// `POST /--/api/v2/push/send` and `POST /--/api/v2/push/getReceipts` as strictly as Expo does
/// (request errors as `{"errors": [{"code", "message"}]}`, tickets and receipts as
/// `{"data": ...}`), records what it accepts and misbehaves on demand per push token.
///
/// With an access token, every request must carry `Authorization: Bearer <token>`, as for a
/// project with enhanced push security; others get 401.
public final class ExpoSandbox: Sendable {
    /// The access token requests must carry, when set.
    public let accessToken: String?
    /// A gzip- or deflate-encoded body inflating past this many bytes is refused (413).
    public let maxBodyBytes: Int
    private let reader = ExpoRequestReader()
    private let clock: @Sendable () -> Date
    private let state: Mutex<ExpoSandboxState>

    /// A sandbox that wants `accessToken` (none: any request is let in), keeping the last
    /// `acceptedLimit` notifications, inflating compressed bodies up to `maxBodyBytes`; `clock`
    /// tells the time.
    public init(
        accessToken: String?, acceptedLimit: Int = 10_000,
        maxBodyBytes: Int = HTTP2ServerConfiguration.defaultMaxRequestBodyBytes,
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        precondition(acceptedLimit > 0, "the sandbox must keep at least one accepted notification")
        precondition(maxBodyBytes > 0, "a body limit is at least one byte")
        self.accessToken = accessToken
        self.maxBodyBytes = maxBodyBytes
        self.clock = clock
        self.state = Mutex(ExpoSandboxState(acceptedLimit: acceptedLimit))
    }

    /// The routes of the Expo look-alike: the push API under `/--/api/v2/push/`, the admin
    /// endpoint under `/admin/expo/`.
    public var routes: [SandboxRouter.Route] {
        [
            SandboxRouter.Route(prefix: "/--/api/v2/push/", handler: answer),
            SandboxRouter.Route(prefix: ExpoAdmin.prefix, handler: answer),
        ]
    }

    /// The answer to one request: the server's handler. Only a delay fault makes the answer wait.
    @Sendable public func answer(to request: HTTP2Request) -> HTTP2Answer {
        if request.path.hasPrefix(ExpoAdmin.prefix) { return .now(ExpoAdmin(sandbox: self).respond(to: request)) }
        let path = request.path.split(separator: "?").first.map(String.init) ?? ""
        guard path == "/--/api/v2/push/send" || path == "/--/api/v2/push/getReceipts" else {
            return .now(refuse(404, "NOT_FOUND", "No route for \(request.method) \(path.prefix(100))"))
        }
        guard request.method == "POST" else { return .now(refuse(405, "METHOD_NOT_ALLOWED", "Use POST.")) }
        if let accessToken, request.header("authorization") != "Bearer \(accessToken)" {
            return .now(
                refuse(
                    401, "UNAUTHORIZED",
                    "The bearer token is invalid: this project requires an access token (enhanced push security)."))
        }
        guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
            return .now(refuse(400, "VALIDATION_ERROR", "The content-type must be application/json."))
        }
        do throws(ExpoRequestReader.Refusal) {
            let body = try decodedBody(request)
            if path.hasSuffix("/getReceipts") { return .now(receipts(for: try reader.receiptIDs(of: body))) }
            return send(try reader.recipients(of: body))
        } catch {
            return .now(refuse(error.status, error.code, error.message))
        }
    }

    /// The body, inflated when it came with `Content-Encoding: gzip` (or `deflate`), as Expo's
    /// SDKs send bodies over 1 KiB.
    private func decodedBody(_ request: HTTP2Request) throws(ExpoRequestReader.Refusal) -> [UInt8] {
        switch request.header("content-encoding")?.lowercased().trimming(where: \.isSpaceOrTab) {
        case nil, "identity": return request.body
        case "gzip", "x-gzip", "deflate":
            do throws(Inflater.Failure) {
                return try Inflater.inflate(request.body, limit: maxBodyBytes)
            } catch {
                switch error {
                case .tooLarge(let limit):
                    throw .init(
                        status: 413, code: "PAYLOAD_TOO_LARGE",
                        message: "The request body inflates to over \(limit) bytes.")
                case .corrupt(let reason):
                    throw .init(
                        status: 400, code: "VALIDATION_ERROR",
                        message: "The compressed request body is unreadable (\(reason)).")
                }
            }
        case let coding?:
            throw .init(
                status: 415, code: "UNSUPPORTED_MEDIA_TYPE",
                message: "The content-encoding \"\(coding.prefix(40))\" is not supported: use gzip, deflate or none.")
        }
    }

    /// ``answer(to:)``, waited for.
    @Sendable public func respond(to request: HTTP2Request) async -> HTTP2Response {
        await answer(to: request).response
    }

    private func send(_ recipients: [ExpoRequestReader.Recipient]) -> HTTP2Answer {
        switch state.withLock({ $0.takeRequestFault(for: recipients.map(\.to)) }) {
        case .tooManyRequests(let seconds):
            return .now(
                refuse(
                    429, "TOO_MANY_REQUESTS", "The project is sending too many notifications: retry later.",
                    extra: [HTTP2Header("retry-after", "\(seconds)")]))
        case .unavailable: return .now(refuse(503, "SERVICE_UNAVAILABLE", "The Expo push service is unavailable."))
        case .dropConnection: return .now(.dropConnection)
        case .delay(let duration):
            return .later { [self] in
                try? await Task.sleep(for: duration)
                return accept(recipients)
            }
        default: return .now(accept(recipients))
        }
    }

    /// Takes each recipient's fault, keeps the tickets and receipts, and answers the tickets.
    private func accept(_ recipients: [ExpoRequestReader.Recipient]) -> HTTP2Response {
        let now = clock()
        var tickets: [String] = []
        var accepted: [ExpoPushMessage] = []
        state.withLock { state in
            for recipient in recipients {
                let size = ExpoRequestReader.messageBytes(recipient.fields)
                if size > ExpoRequestReader.maxMessageBytes {
                    tickets.append(
                        Self.errorTicket(
                            "MessageTooBig",
                            message:
                                "Message was too big: the notification payload is \(size) bytes, over the limit of \(ExpoRequestReader.maxMessageBytes) bytes.",
                            token: recipient.to))
                    continue
                }
                switch state.faults.take(for: recipient.to)?.fault {
                case .deviceNotRegisteredTicket:
                    tickets.append(
                        Self.errorTicket(
                            "DeviceNotRegistered",
                            message: "\"\(recipient.to)\" is not a registered push notification recipient",
                            token: recipient.to))
                    continue
                case .messageRateExceeded:
                    tickets.append(
                        Self.errorTicket(
                            "MessageRateExceeded",
                            message: "\"\(recipient.to)\" is receiving messages too frequently", token: recipient.to))
                    continue
                case .deviceNotRegisteredReceipt:
                    let message = ExpoPushMessage(
                        to: recipient.to, fields: recipient.fields, ticketID: RandomUUID.make(), receivedAt: now)
                    state.keep(
                        .error(
                            "DeviceNotRegistered", message: "The recipient device is not registered with FCM or APNs."),
                        for: message.ticketID, at: now)
                    accepted.append(message)
                case .messageRateExceededReceipt:
                    let message = ExpoPushMessage(
                        to: recipient.to, fields: recipient.fields, ticketID: RandomUUID.make(), receivedAt: now)
                    state.keep(
                        .error(
                            "MessageRateExceeded",
                            message: "\"\(recipient.to)\" is receiving messages too frequently; the push was dropped."),
                        for: message.ticketID, at: now)
                    accepted.append(message)
                default:
                    let message = ExpoPushMessage(
                        to: recipient.to, fields: recipient.fields, ticketID: RandomUUID.make(), receivedAt: now)
                    state.keep(.ok, for: message.ticketID, at: now)
                    accepted.append(message)
                }
                tickets.append(#"{"status":"ok","id":"\#(accepted[accepted.count - 1].ticketID)"}"#)
            }
            state.record(accepted, sendSize: recipients.count)
            state.statusCounts[200, default: 0] += 1
        }
        // A send whose answer never left (its connection dropped meanwhile) was not accepted:
        // the sender cannot know, and sends it again.
        return HTTP2Response(
            status: 200, headers: [HTTP2Header("content-type", "application/json; charset=utf-8")],
            body: Array(#"{"data":[\#(tickets.joined(separator: ","))]}"#.utf8),
            whenUnanswered: { [self, accepted] in state.withLock { $0.forget(accepted, sendSize: recipients.count) } })
    }

    private func receipts(for ids: [String]) -> HTTP2Response {
        let now = clock()
        let known = state.withLock { state in
            state.expireReceipts(now: now)
            state.statusCounts[200, default: 0] += 1
            return ids.compactMap { id in state.receipts[id].map { (id, $0) } }
        }
        var entries: [String: Any] = [:]
        for (id, receipt) in known {
            switch receipt {
            case .ok: entries[id] = ["status": "ok"]
            case .error(let error, let message):
                entries[id] = ["status": "error", "message": message, "details": ["error": error]]
            }
        }
        return HTTP2Response.json(200, ["data": entries])
    }

    private static func errorTicket(_ error: String, message: String, token: String) -> String {
        let object: [String: Any] = [
            "status": "error", "message": message, "details": ["error": error, "expoPushToken": token],
        ]
        return String(decoding: JSONWriter.data(object) ?? Array("{}".utf8), as: UTF8.self)
    }

    private func refuse(_ status: Int, _ code: String, _ message: String, extra: [HTTP2Header] = []) -> HTTP2Response {
        state.withLock { $0.statusCounts[status, default: 0] += 1 }
        var response = HTTP2Response.json(
            status, ["errors": [["code": code, "message": message, "isTransient": status >= 429]]])
        response.headers += extra
        return response
    }

    // MARK: Faults

    /// Makes requests to `token` meet `fault`: for the next `times` requests, or until cleared
    /// when nil. Replaces the token's previous fault.
    public func setFault(_ fault: ExpoFault, for token: String, times: Int? = nil) {
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

    // MARK: What arrived

    /// The accepted notifications, oldest first (the most recent ones, up to the limit).
    public var accepted: [ExpoPushMessage] { state.withLock { $0.accepted.entries } }

    /// The accepted notifications sent to `token`, oldest first.
    public func accepted(for token: String) -> [ExpoPushMessage] {
        state.withLock { $0.accepted.entries.filter { $0.to == token } }
    }

    /// How many receipts the sandbox holds: those of the last day's tickets, as Expo keeps them.
    public var storedReceiptCount: Int { state.withLock { $0.receipts.count } }

    /// How many notifications each send answered 200 carried, in order (the most recent ones,
    /// up to the accepted limit).
    public var sendSizes: [Int] { state.withLock { $0.sendSizes.entries } }

    /// How many requests got each HTTP status, since start (dropped connections count none).
    public var statusCounts: [Int: Int] { state.withLock { $0.statusCounts } }
}
