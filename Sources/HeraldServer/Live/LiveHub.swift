import Foundation
import HeraldHTTP
import HeraldModel
import HeraldStore
import Synchronization

/// Fans changes out to the open streams of each user.
///
/// Logged events carry the sequence number of the store's event log. Two writes for one user
/// can finish in either order, so live events are never dropped for arriving "late"; only the
/// events a reconnecting stream already replayed from the log are skipped. Counts are not
/// pushed as computed by each write (an older value could arrive last): a change marks the
/// user's counts stale, and one refresh at a time per user reads them fresh and sends them.
final class LiveHub: Sendable {
    /// Streams one user may hold; a new one beyond this closes their oldest.
    static let maxStreamsPerUser = 16

    private struct State {
        var subscribers: [String: [LiveSubscriber]] = [:]
        /// Users whose counts refresh is running, and whether another change came meanwhile.
        var refreshing: [String: Bool] = [:]
    }

    private let state = Mutex(State())
    private let counts: @Sendable (String) async throws -> Counts

    /// `counts` reads a user's current counts (the store).
    init(counts: @escaping @Sendable (String) async throws -> Counts) {
        self.counts = counts
    }

    /// Number of open streams, for `/metrics`.
    var streamCount: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    func subscribe(_ subscriber: LiveSubscriber) {
        let evicted = state.withLock { state -> LiveSubscriber? in
            var streams = state.subscribers[subscriber.userID, default: []]
            streams.append(subscriber)
            let oldest = streams.count > Self.maxStreamsPerUser ? streams.removeFirst() : nil
            state.subscribers[subscriber.userID] = streams
            return oldest
        }
        subscriber.stream.onClose { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            self.unsubscribe(subscriber)
        }
        evicted?.stream.finish()
    }

    func unsubscribe(_ subscriber: LiveSubscriber) {
        state.withLock { state in
            state.subscribers[subscriber.userID]?.removeAll { $0 === subscriber }
            if state.subscribers[subscriber.userID]?.isEmpty == true { state.subscribers[subscriber.userID] = nil }
        }
    }

    /// Sends logged events (with their sequence numbers) to their users' streams.
    func publish(_ events: [StreamEventRecord]) {
        for event in events {
            let frame = ServerSentEvent(id: String(event.seq), event: event.kind, data: event.payload).bytes
            for subscriber in subscribers(of: event.userID) {
                subscriber.deliver(seq: event.seq, frame: frame)
            }
        }
    }

    /// A change touched `userID`'s counts: send them fresh to their streams.
    func countsChanged(for userID: String) {
        guard !subscribers(of: userID).isEmpty else { return }
        let start = state.withLock { state -> Bool in
            if state.refreshing[userID] != nil {
                state.refreshing[userID] = true  // run once more when the current refresh ends
                return false
            }
            state.refreshing[userID] = false
            return true
        }
        guard start else { return }
        Task { await refreshCounts(of: userID) }
    }

    private func refreshCounts(of userID: String) async {
        while true {
            if let current = try? await counts(userID) {
                let frame = ServerSentEvent.counts(current).bytes
                for subscriber in subscribers(of: userID) { subscriber.deliverUnsequenced(frame) }
            }
            let again = state.withLock { state -> Bool in
                guard state.refreshing[userID] == true else {
                    state.refreshing[userID] = nil
                    return false
                }
                state.refreshing[userID] = false
                return true
            }
            guard again else { return }
        }
    }

    /// The comment that keeps idle streams (and any proxy between) open.
    private static let heartbeatFrame = ServerSentEvent.comment(" heartbeat")

    /// Writes a heartbeat comment to every open stream, and ends streams whose token expired
    /// (the client reconnects and meets the sign-in gate).
    func heartbeat(now: Date) {
        let all = state.withLock { state in state.subscribers.values.flatMap { $0 } }
        for subscriber in all {
            if subscriber.expires <= now {
                subscriber.stream.finish()
            } else {
                subscriber.deliverUnsequenced(Self.heartbeatFrame)
            }
        }
    }

    /// Ends every stream (graceful stop).
    func closeAll() {
        let all = state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers.values.flatMap { $0 }
        }
        for subscriber in all { subscriber.stream.finish() }
    }

    private func subscribers(of userID: String) -> [LiveSubscriber] {
        state.withLock { $0.subscribers[userID] ?? [] }
    }
}

extension ServerSentEvent {
    static func counts(_ counts: Counts) -> ServerSentEvent {
        ServerSentEvent(event: "counts", data: #"{"unread":\#(counts.unread),"unseen":\#(counts.unseen)}"#)
    }
}

/// One open stream of one user. It starts out replaying the log for `Last-Event-ID`: live
/// frames that arrive meanwhile are held and sent after the replay, each event once.
final class LiveSubscriber: Sendable {
    let userID: String
    let stream: ResponseStream
    /// When the token that opened the stream expires.
    let expires: Date

    private struct State {
        /// Events up to here were sent by the replay; live copies of them are skipped.
        var replayedThrough: Int64 = 0
        /// Live frames that arrived during the replay (seq `nil` for unsequenced ones).
        var held: [(seq: Int64?, frame: [UInt8])] = []
        var replaying = true
    }

    private let state = Mutex(State())

    init(userID: String, stream: ResponseStream, expires: Date) {
        self.userID = userID
        self.stream = stream
        self.expires = expires
    }

    func deliver(seq: Int64, frame: [UInt8]) {
        state.withLock { state in
            if state.replaying {
                state.held.append((seq, frame))
            } else if seq > state.replayedThrough {
                stream.write(frame)
            }
        }
    }

    func deliverUnsequenced(_ frame: [UInt8]) {
        state.withLock { state in
            if state.replaying {
                state.held.append((nil, frame))
            } else {
                stream.write(frame)
            }
        }
    }

    /// Writes `preamble`, the replayed events in order, then what arrived meanwhile, and goes live.
    func finishReplay(preamble: [UInt8], _ events: [StreamEventRecord]) {
        state.withLock { state in
            stream.write(preamble)
            for event in events {
                stream.write(ServerSentEvent(id: String(event.seq), event: event.kind, data: event.payload).bytes)
                state.replayedThrough = max(state.replayedThrough, event.seq)
            }
            for held in state.held where held.seq.map({ $0 > state.replayedThrough }) ?? true {
                stream.write(held.frame)
            }
            state.held = []
            state.replaying = false
        }
    }
}
