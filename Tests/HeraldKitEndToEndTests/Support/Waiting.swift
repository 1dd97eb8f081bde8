import Foundation
import HeraldKit
import Synchronization

/// Runs `body`, failing with ``EndToEndError/timedOut(_:)`` when it takes longer than `limit`
/// (an upper bound on real I/O, never a pause). `body` must end when cancelled.
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw EndToEndError.timedOut(what)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw EndToEndError.timedOut(what) }
        return first
    }
}

/// A queue one task fills and one test reads, each read cancellable and bounded.
final class Mailbox<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var end: Result<Void, any Error>?
        var waiter: (id: Int, continuation: CheckedContinuation<Element?, any Error>)?
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {}

    func put(_ item: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard let waiter = state.waiter else {
                state.items.append(item)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: item)
    }

    /// No more items: readers get `nil`, or `end`'s error, once the queue is empty.
    func finish(_ end: Result<Void, any Error> = .success(())) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            state.end = end
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        switch end {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    /// The next item, waiting at most `limit`.
    func take(within limit: Duration = .seconds(10), _ what: String = "the next item") async throws -> Element? {
        try await within(limit, what) { [self] in try await take() }
    }

    /// The next item; `nil` once finished and empty.
    func take() async throws -> Element? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let ready = state.withLock { state -> Result<Element?, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if !state.items.isEmpty { return .success(state.items.removeFirst()) }
                    switch state.end {
                    case .success: return .success(nil)
                    case .failure(let error): return .failure(error)
                    case nil:
                        state.waiter = (id, continuation)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Consumes a live-event stream in the background and hands its events to the test one by one.
final class LiveEventRecorder: Sendable {
    private let events = Mailbox<LiveEvent>()
    private let consumer: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<LiveEvent, any Error>) {
        consumer = Task { [events] in
            do {
                for try await event in stream { events.put(event) }
                events.finish()
            } catch {
                events.finish(.failure(error))
            }
        }
    }

    /// Stops consuming: the client closes its connection.
    func cancel() { consumer.cancel() }

    /// The next event; `nil` when the stream finished; throws the stream's error.
    func next(within limit: Duration = .seconds(10)) async throws -> LiveEvent? {
        try await events.take(within: limit, "the next live event")
    }

    /// Waits for the `counts` event a stream opens with: from then on the server has it subscribed,
    /// so a change made after this reaches it (one made before may arrive before it is live).
    func connected(within limit: Duration = .seconds(10)) async throws {
        let first = try await next(within: limit)
        guard case .counts = first else {
            throw EndToEndError.commandFailed("a stream opened with \(String(describing: first)), not its counts")
        }
    }

    /// Skips events until one matches `predicate`.
    func next(
        within limit: Duration = .seconds(10), where predicate: @escaping @Sendable (LiveEvent) -> Bool
    ) async throws -> LiveEvent? {
        try await within(limit, "a matching live event") { [events] in
            while let event = try await events.take() {
                if predicate(event) { return event }
            }
            return nil
        }
    }
}

/// A reconnect clock the test holds: every wait the client asks for is reported and lasts until
/// the test opens the gate (or the stream is cancelled).
final class ReconnectGate: Sendable {
    private struct State {
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    private let state = Mutex(State())
    private let requests = Mailbox<Duration>()

    init() {}

    /// The default policy (no jitter) with its waits going through this gate.
    var policy: ReconnectPolicy {
        ReconnectPolicy(sleep: { [self] duration in try await wait(duration) }, jitter: { 1 })
    }

    /// The next wait the client asks for.
    func nextRequest(within limit: Duration = .seconds(10)) async throws -> Duration? {
        try await requests.take(within: limit, "the client to wait before reconnecting")
    }

    /// Lets the oldest waiting reconnect go.
    func open() {
        let waiter = state.withLock { state in state.waiters.isEmpty ? nil : state.waiters.removeFirst() }
        waiter?.continuation.resume()
    }

    private func wait(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    requests.put(duration)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
