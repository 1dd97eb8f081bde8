import HeraldHTTP2
import Synchronization

/// Easy handles of finished transfers, kept for the next ones: a new handle costs several
/// allocations (and its buffers more on first use), a reset one none.
///
/// Callers take a handle as they build a request and give it back as the transfer ends; once
/// the client has closed, given handles are freed instead of kept.
final class EasyHandlePool: Sendable {
    private struct State {
        var idle: [CurlEasy] = []
        var closed = false
    }

    /// Handles kept at most; more are freed as they come back.
    let limit: Int
    private let state = Mutex(State())
    private let counter: HandleCounter

    init(limit: Int, counter: HandleCounter) {
        self.limit = limit
        self.counter = counter
    }

    /// Handles waiting to be reused.
    var idleCount: Int { state.withLock { $0.idle.count } }

    /// A handle with libcurl's default options: a kept one reset, or a new one.
    func take() throws(HTTP2ClientError) -> CurlEasy {
        if let kept = state.withLock({ $0.idle.popLast() }) {
            try kept.reset()
            return kept
        }
        return try CurlEasy(counter: counter)
    }

    /// Keeps `easy` (out of every multi handle) for a later transfer, or frees it.
    func give(_ easy: CurlEasy) {
        // Freed outside the lock: curl_easy_cleanup may take a while.
        let dropped: CurlEasy? = state.withLock { state in
            guard !state.closed, state.idle.count < limit else { return easy }
            state.idle.append(easy)
            return nil
        }
        _ = dropped
    }

    /// Frees every kept handle; later ones are freed as they come back.
    func close() {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        _ = idle
    }
}
