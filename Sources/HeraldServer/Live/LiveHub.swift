import Foundation
import HeraldHTTP
import HeraldModel
import HeraldStore
import Synchronization

/// Fans changes out to the open streams of each user.
///
/// Stored events carry the sequence number of the store's event log, so a subscriber that
/// is still replaying (`Last-Event-ID`) holds live events back and sends each one once, in order.
final class LiveHub: Sendable {
    private let subscribers = Mutex<[String: [ObjectIdentifier: LiveSubscriber]]>([:])

    /// Number of open streams, for `/metrics`.
    var streamCount: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    func subscribe(_ subscriber: LiveSubscriber) {
        subscribers.withLock { $0[subscriber.userID, default: [:]][ObjectIdentifier(subscriber)] = subscriber }
        subscriber.stream.onClose { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            self.unsubscribe(subscriber)
        }
    }

    func unsubscribe(_ subscriber: LiveSubscriber) {
        subscribers.withLock { table in
            table[subscriber.userID]?[ObjectIdentifier(subscriber)] = nil
            if table[subscriber.userID]?.isEmpty == true { table[subscriber.userID] = nil }
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

    /// Sends the current counts of a user to their streams.
    func publish(counts: Counts, for userID: String) {
        let targets = subscribers(of: userID)
        guard !targets.isEmpty else { return }
        let frame = ServerSentEvent.counts(counts).bytes
        for subscriber in targets { subscriber.deliverUnsequenced(frame) }
    }

    /// The comment that keeps idle streams (and any proxy between) open.
    private static let heartbeatFrame = ServerSentEvent.comment(" heartbeat")

    /// Writes a heartbeat comment to every open stream.
    func heartbeat() {
        let all = subscribers.withLock { table in table.values.flatMap { $0.values } }
        for subscriber in all { subscriber.deliverUnsequenced(Self.heartbeatFrame) }
    }

    /// Ends every stream (graceful stop).
    func closeAll() {
        let all = subscribers.withLock { table in
            defer { table = [:] }
            return table.values.flatMap { $0.values }
        }
        for subscriber in all { subscriber.stream.finish() }
    }

    private func subscribers(of userID: String) -> [LiveSubscriber] {
        subscribers.withLock { table in table[userID].map { Array($0.values) } ?? [] }
    }
}

extension ServerSentEvent {
    static func counts(_ counts: Counts) -> ServerSentEvent {
        ServerSentEvent(id: nil, event: "counts", data: #"{"unread":\#(counts.unread),"unseen":\#(counts.unseen)}"#)
    }
}

/// One open stream of one user.
final class LiveSubscriber: Sendable {
    let userID: String
    let stream: ResponseStream

    private struct State {
        var lastSeq: Int64
        /// Live events that arrived while the stream was replaying from the log.
        var held: [(seq: Int64, frame: [UInt8])] = []
        var replaying: Bool
    }

    private let state: Mutex<State>

    init(userID: String, stream: ResponseStream, replaying: Bool) {
        self.userID = userID
        self.stream = stream
        self.state = Mutex(State(lastSeq: 0, replaying: replaying))
    }

    func deliver(seq: Int64, frame: [UInt8]) {
        state.withLock { state in
            if state.replaying {
                state.held.append((seq, frame))
            } else if seq > state.lastSeq {
                state.lastSeq = seq
                _ = stream.write(frame)
            }
        }
    }

    func deliverUnsequenced(_ frame: [UInt8]) {
        state.withLock { state in
            if !state.replaying { _ = stream.write(frame) }
        }
    }

    /// Writes replayed events in order, then what arrived meanwhile, and goes live.
    func finishReplay(_ events: [StreamEventRecord], then frame: [UInt8]) {
        state.withLock { state in
            for event in events where event.seq > state.lastSeq {
                state.lastSeq = event.seq
                _ = stream.write(ServerSentEvent(id: String(event.seq), event: event.kind, data: event.payload).bytes)
            }
            for held in state.held.sorted(by: { $0.seq < $1.seq }) where held.seq > state.lastSeq {
                state.lastSeq = held.seq
                _ = stream.write(held.frame)
            }
            state.held = []
            state.replaying = false
            _ = stream.write(frame)
        }
    }
}
