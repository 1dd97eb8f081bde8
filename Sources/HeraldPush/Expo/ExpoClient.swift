import FoundationEssentials
import HeraldModel

/// Sends batches of pushes to the Expo push service (or the sandbox) and fetches their
/// receipts, answering a provider-neutral ``PushVerdict`` per message and per receipt.
///
/// A send is one request for up to 100 messages; each gets its own verdict from its ticket.
/// A failure of the whole request (429, 5xx, the connection) is a retry for every message,
/// with the `Retry-After` Expo sent; a refused access token (401, 403) or any other 4xx fails
/// them, as Expo's documentation says not to retry other 4xx.
public final class ExpoClient: Sendable {
    /// What came of a receipts request.
    public enum ReceiptsAnswer: Sendable, Equatable {
        /// A verdict per ticket id whose receipt is ready: `.sent` for an ok receipt, `.pruned`,
        /// `.retry` or `.failed` for an error (``ExpoErrorTable/receiptVerdict(error:message:)``).
        /// Ids without a receipt yet are absent.
        case receipts([String: PushVerdict])
        /// The request failed as a whole; ask again later (`retryAfter` verbatim, when sent).
        case unavailable(reason: String, retryAfter: String?)
    }

    /// The service and access token.
    public let configuration: ExpoConfiguration
    private let exchange: HTTP2Exchange

    /// A client for `configuration` sending through `exchange` (`{ try await http2Client.send($0) }`
    /// in production).
    public init(configuration: ExpoConfiguration, exchange: @escaping HTTP2Exchange) {
        self.configuration = configuration
        self.exchange = exchange
    }

    /// The request error of a send whose tokens belong to more than one Expo project; its
    /// `details` list each project's tokens.
    public static let mixedProjectsCode = "PUSH_TOO_MANY_EXPERIENCE_IDS"

    /// Sends `messages` (1 to 100) in one request; answers one verdict per message, in order:
    /// an ok ticket is `.sent` with the ticket id as `providerMessageID`. Throws only when the
    /// task is cancelled.
    ///
    /// Expo refuses a whole request whose tokens belong to several projects (one token left by
    /// another build of the app is enough); the messages then go again in one request per
    /// project, as Expo's answer groups them, and a message it names under no project fails.
    public func send(_ messages: [ExpoMessage]) async throws(CancellationError) -> [PushVerdict] {
        let first = try await sendOnce(messages)
        guard let projects = first.tokensByProject else { return first.verdicts }
        var verdicts = first.verdicts
        for indices in Self.projectGroups(of: messages, tokensByProject: projects) {
            let answer = try await sendOnce(indices.map { messages[$0] })
            for (index, verdict) in zip(indices, answer.verdicts) { verdicts[index] = verdict }
        }
        return verdicts
    }

    /// The indices of `messages` grouped by the project Expo named for each one's token, in
    /// project order; messages it did not name are left out.
    static func projectGroups(of messages: [ExpoMessage], tokensByProject: [String: [String]]) -> [[Int]] {
        var projectOfToken: [String: String] = [:]
        for (project, tokens) in tokensByProject {
            for token in tokens { projectOfToken[token] = project }
        }
        var groups: [String: [Int]] = [:]
        for (index, message) in messages.enumerated() {
            guard let to = message.to, let project = projectOfToken[to] else { continue }
            groups[project, default: []].append(index)
        }
        return groups.sorted { $0.key < $1.key }.map(\.value)
    }

    /// One send request's verdicts and, when Expo refused it for mixing projects, its grouping.
    private struct SendAnswer {
        var verdicts: [PushVerdict]
        var tokensByProject: [String: [String]]?
    }

    private func sendOnce(_ messages: [ExpoMessage]) async throws(CancellationError) -> SendAnswer {
        let response: HTTP2Response
        switch try await perform(ExpoRequest.send(messages, configuration: configuration)) {
        case .response(let answer): response = answer
        case .failed(let verdict): return SendAnswer(verdicts: Array(repeating: verdict, count: messages.count))
        }
        guard (200..<300).contains(response.status) else {
            let errors = try? JSONDecoder().decode(ExpoAnswer.Send.self, from: Data(response.body)).errors
            let verdict = Self.requestVerdict(response, reason: ExpoAnswer.reason(errors, status: response.status))
                .answered(response.status)
            let mixed = errors?.first { $0.code == Self.mixedProjectsCode }?.tokensByProject
            return SendAnswer(
                verdicts: Array(repeating: verdict, count: messages.count),
                tokensByProject: response.status == 400 ? mixed : nil)
        }
        return SendAnswer(verdicts: Self.ticketVerdicts(response, count: messages.count))
    }

    /// One verdict per message from the tickets of an accepted send of `count` messages.
    private static func ticketVerdicts(_ response: HTTP2Response, count: Int) -> [PushVerdict] {
        guard let tickets = try? JSONDecoder().decode(ExpoAnswer.Send.self, from: Data(response.body)).data,
            tickets.count == count
        else {
            // Expo took the request but its answer cannot be matched to the messages: sending
            // again risks a duplicate, never a loss.
            let verdict = PushVerdict.retry(reason: "ExpoUnreadableTickets", retryAfter: nil)
            return Array(repeating: verdict.answered(response.status), count: count)
        }
        return tickets.map { ticket in
            if ticket.status == "ok", let id = ticket.id, !id.isEmpty {
                return .sent(providerMessageID: id, status: response.status)
            }
            return ExpoErrorTable.ticketVerdict(error: ticket.details?.error, message: ticket.message)
                .answered(response.status)
        }
    }

    /// The receipts of the tickets `ids` (1 to 1,000). Throws only when the task is cancelled.
    public func receipts(ids: [String]) async throws(CancellationError) -> ReceiptsAnswer {
        let response: HTTP2Response
        switch try await perform(ExpoRequest.receipts(ids: ids, configuration: configuration)) {
        case .response(let answer): response = answer
        case .failed(let verdict):
            guard case .retry(let reason, let retryAfter, _) = verdict else {
                return .unavailable(reason: Self.reason(of: verdict), retryAfter: nil)
            }
            return .unavailable(reason: reason, retryAfter: retryAfter)
        }
        let answer = try? JSONDecoder().decode(ExpoAnswer.Receipts.self, from: Data(response.body))
        guard (200..<300).contains(response.status), let receipts = answer?.data else {
            return .unavailable(
                reason: ExpoAnswer.reason(answer?.errors, status: response.status),
                retryAfter: response.header("retry-after"))
        }
        var verdicts: [String: PushVerdict] = [:]
        for (id, receipt) in receipts {
            verdicts[id] =
                receipt.status == "ok"
                ? .sent(providerMessageID: id)
                : ExpoErrorTable.receiptVerdict(error: receipt.details?.error, message: receipt.message)
        }
        return .receipts(verdicts)
    }

    /// A response, or the verdict on a transport failure.
    private enum Exchanged {
        case response(HTTP2Response)
        case failed(PushVerdict)
    }

    private func perform(_ request: HTTP2Request) async throws(CancellationError) -> Exchanged {
        do {
            return .response(try await exchange(request))
        } catch let error as HTTP2ClientError {
            let reason = "Transport: \(error.kind)"
            return .failed(error.isRetryable ? .retry(reason: reason, retryAfter: nil) : .failed(reason: reason))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .failed(.retry(reason: "Transport: \(type(of: error))", retryAfter: nil))
        }
    }

    /// The verdict for every message of a request Expo refused as a whole with `response`.
    static func requestVerdict(_ response: HTTP2Response, reason: String) -> PushVerdict {
        switch response.status {
        case 429, 500..<600: .retry(reason: reason, retryAfter: response.header("retry-after"))
        default: .failed(reason: reason)
        }
    }

    private static func reason(of verdict: PushVerdict) -> String {
        switch verdict {
        case .sent: "sent"
        case .retry(let reason, _, _), .failed(let reason, _), .pruned(let reason, _): reason
        }
    }
}
