/// A handler's answer to one request: ready at once, or only after waiting.
///
/// A ready answer is made and sent on the connection's event-loop thread, with no task and no
/// hop between threads; an answer that waits (a delay fault) runs as a task and comes back
/// through the loop.
public enum HTTP2Answer: Sendable {
    /// The response, made without waiting.
    case now(HTTP2Response)
    /// The response, once the closure has waited for it.
    case later(@Sendable () async -> HTTP2Response)

    /// The response, waiting for it if need be.
    public var response: HTTP2Response {
        get async {
            switch self {
            case .now(let response): response
            case .later(let make): await make()
            }
        }
    }
}
