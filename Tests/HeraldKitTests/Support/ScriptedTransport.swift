import Foundation
import Synchronization

@testable import HeraldKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An event-stream transport whose connections a test plays by hand: each opened connection
/// arrives on ``connections``; the test yields its head and bytes, ends or fails it, and sees
/// when the client closed it.
final class ScriptedTransport: Sendable {
    /// One connection the client opened.
    struct Connection: Sendable {
        let request: URLRequest
        let server: AsyncThrowingStream<EventStreamPart, any Error>.Continuation
        /// Yields once when the client stops reading (cancelled) or the connection ended.
        let closed: AsyncStream<Void>

        func header(_ name: String) -> String? { request.value(forHTTPHeaderField: name) }

        /// Sends a 200 head and `text` as one chunk.
        func open(sending text: String = "") {
            server.yield(.head(status: 200))
            if !text.isEmpty { send(text) }
        }

        func send(_ text: String) { server.yield(.body(Data(text.utf8))) }

        /// Answers `status` with the error body `{"error":{"code":code,...}}` and ends.
        func refuse(_ status: Int, code: String) {
            server.yield(.head(status: status))
            send(#"{"error":{"code":"\#(code)","message":"refused"}}"#)
            server.finish()
        }
    }

    let connections: AsyncStream<Connection>
    private let opened: AsyncStream<Connection>.Continuation
    private let count = Mutex(0)

    init() {
        (connections, opened) = AsyncStream.makeStream(of: Connection.self)
    }

    /// How many connections the client opened.
    var openedCount: Int { count.withLock { $0 } }

    var transport: EventStreamTransport {
        EventStreamTransport { [self] request in
            let (stream, server) = AsyncThrowingStream.makeStream(of: EventStreamPart.self)
            let (closed, closing) = AsyncStream.makeStream(of: Void.self)
            server.onTermination = { _ in
                closing.yield()
                closing.finish()
            }
            count.withLock { $0 += 1 }
            opened.yield(Connection(request: request, server: server, closed: closed))
            return stream
        }
    }
}

/// A clock for the reconnect delays: every requested sleep is recorded and waits until the test
/// wakes it (or the sleeping task is cancelled).
final class ManualSleeper: Sendable {
    private struct Sleeper {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var nextID = 0
        var sleepers: [Sleeper] = []
        var requested: [Duration] = []
    }

    /// Each requested duration, as the client asks for it.
    let requests: AsyncStream<Duration>
    private let requesting: AsyncStream<Duration>.Continuation
    private let state = Mutex(State())

    init() {
        (requests, requesting) = AsyncStream.makeStream(of: Duration.self)
    }

    /// Every duration requested so far.
    var requested: [Duration] { state.withLock { $0.requested } }

    func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.requested.append(duration)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, continuation: continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    requesting.yield(duration)
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Wakes the oldest sleeper.
    func wake() {
        let sleeper = state.withLock { state -> Sleeper? in
            state.sleepers.isEmpty ? nil : state.sleepers.removeFirst()
        }
        sleeper?.continuation.resume()
    }
}
