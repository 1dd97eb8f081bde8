import Foundation
import HeraldModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /v1/me/stream` as one ``LiveEvent`` sequence that outlives connections.
///
/// Each connection asks for the current token and sends `Last-Event-ID` (the last event id the
/// stream set, across connections: Herald opens every new stream with one), so the server
/// replays what was missed. When a connection ends it reconnects after the ``ReconnectPolicy``
/// delay. It stops for good when the server ends it as `replaced` (the user opened more streams
/// than the server keeps: this one made room, and reconnecting would only evict another), when
/// the token is missing or refused (401:
/// ``HeraldAPIError/Kind/unauthenticated``), when the server refuses the request with another
/// 4xx, or when the consumer stops iterating (the connection is closed).
///
/// A stream that opens without `Last-Event-ID` after an earlier one had opened cannot know what
/// happened in between (the id was refused, or the drop came before the server's first frame):
/// it yields `.reset` so the app refetches, as after a replay that would be too long.
struct LiveEventSource: Sendable {
    var url: URL
    var token: @Sendable () async -> String?
    var transport: EventStreamTransport
    var policy: ReconnectPolicy
    /// A connection silent this long is dropped and replaced.
    var idleTimeout: Duration

    /// What carries over from one connection to the next.
    struct State: Sendable, Equatable {
        var lastEventID = ""
        var retry: Duration
        /// Attempts in a row that did not open a stream.
        var failures = 0
        /// A connection has opened, so the app holds live state a gap would make stale.
        var hasOpened = false
    }

    /// How one connection ended.
    enum Outcome: Sendable {
        case reconnect
        /// The server ended the stream for good (`event: closed`, reason `replaced`).
        case ended
        case finish(HeraldAPIError)
        case cancelled
    }

    /// The events; iteration ends by the rules above.
    func events() -> AsyncThrowingStream<LiveEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: LiveEvent.self)
        let task = Task { await run(continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func run(_ continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation) async {
        var state = State(retry: policy.initialRetry)
        while !Task.isCancelled {
            switch await connect(&state, continuation) {
            case .cancelled, .ended:
                continuation.finish()
                return
            case .finish(let error):
                continuation.finish(throwing: error)
                return
            case .reconnect:
                do {
                    try await policy.sleep(policy.delay(retry: state.retry, failures: state.failures))
                } catch {
                    continuation.finish()
                    return
                }
            }
        }
        continuation.finish()
    }

    /// Runs one connection to its end.
    func connect(
        _ state: inout State, _ continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation
    ) async -> Outcome {
        guard let token = await token() else { return .finish(.unauthenticated("Not signed in.")) }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.timeoutInterval = idleTimeout.timeoutInterval
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let resumes = !state.lastEventID.isEmpty
        if resumes { request.setValue(state.lastEventID, forHTTPHeaderField: "Last-Event-ID") }

        var parser = ServerSentEventParser(lastEventID: state.lastEventID)
        var status: Int?
        var errorBody = Data()
        var closedReason: String?
        do {
            for try await part in transport.open(request) {
                switch part {
                case .head(let code):
                    status = code
                    if code == 200 {
                        // The server has subscribed this stream: a refetch now misses nothing.
                        if state.hasOpened && !resumes { continuation.yield(.reset) }
                        state.hasOpened = true
                        state.failures = 0
                    }
                case .body(let bytes) where status == 200:
                    for message in parser.feed(bytes) {
                        state.lastEventID = message.lastEventID
                        if message.event == "closed" {
                            closedReason = LiveEventDecoding.closedReason(message)
                            continue
                        }
                        if let event = LiveEventDecoding.event(message) { continuation.yield(event) }
                    }
                    state.lastEventID = parser.lastEventID
                    if let retry = parser.retry { state.retry = .milliseconds(retry) }
                case .body(let bytes):
                    if errorBody.count < 65_536 { errorBody.append(bytes) }
                }
            }
        } catch {
            if Task.isCancelled || HeraldAPIError.transport(error) is CancellationError { return .cancelled }
            if status != 200 { state.failures += 1 }
            return .reconnect
        }
        if Task.isCancelled { return .cancelled }
        if status == 200 && closedReason == "replaced" { return .ended }
        return outcome(status: status, body: errorBody, &state)
    }

    /// What to do after a connection that the server ended with `status`.
    private func outcome(status: Int?, body: Data, _ state: inout State) -> Outcome {
        guard let status, status != 200 else {
            // An open stream that ended: reconnect after the server's retry.
            if status == nil { state.failures += 1 }
            return .reconnect
        }
        let error = HeraldAPIError(status: status, body: body)
        switch status {
        case 400 where error.code == "invalid_last_event_id" && !state.lastEventID.isEmpty:
            // Reconnect without it; the stream that opens then yields `.reset`.
            state.lastEventID = ""
            state.failures += 1
            return .reconnect
        case 408, 429, 500...:
            state.failures += 1
            return .reconnect
        default:
            return .finish(error)
        }
    }
}
