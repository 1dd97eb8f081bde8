import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldStore
import Synchronization

/// Fans changes out to the open streams of each user.
///
/// Streams are fed from the store's event log, never from what a write hands over: a change
/// (written here, or announced by another process sharing the database) only says which users
/// have new events, and one catch-up at a time per user reads the log after the lowest seq its
/// streams have written and gives each stream the events above its own. One user's sequence
/// numbers become visible in order (the store draws them under the user's counter row lock),
/// so a stream never skips an event and never writes one twice, however many times and in
/// whatever order it hears of it. Counts are not pushed as computed by each write (an older
/// value could arrive last): a change marks the user's counts stale, and they are read fresh
/// and sent. One task at a time per user does both, the events first, so a stream gets a
/// change's events before the counts that include them.
final class LiveHub: Sendable {
    /// Streams one user may hold by default; a new one beyond the limit closes their oldest.
    static let defaultMaxStreamsPerUser = 16
    let maxStreamsPerUser: Int

    /// Events one catch-up read takes from the log; a user further behind takes several reads.
    static let catchUpBatch = 500

    /// Reads a user's logged events after a seq, oldest first, at most `limit` (the store's).
    typealias EventReader =
        @Sendable (_ userID: String, _ afterSeq: Int64, _ limit: Int) async throws
        -> [StreamEventRecord]

    private struct State {
        var subscribers: [String: [LiveSubscriber]] = [:]
        /// Users whose streams have a task running, with what was asked for since it last looked.
        var working: [String: Work] = [:]
    }

    /// What a user's streams wait for.
    private struct Work {
        /// Events were logged that a stream has not written.
        var events = false
        /// The counts changed.
        var counts = false
    }

    private let state = Mutex(State())
    private let counts: @Sendable (String) async throws -> Counts
    private let events: EventReader

    /// `counts` reads a user's current counts, `events` their logged events after a seq (the store).
    init(
        counts: @escaping @Sendable (String) async throws -> Counts,
        events: @escaping EventReader,
        maxStreamsPerUser: Int = LiveHub.defaultMaxStreamsPerUser
    ) {
        self.maxStreamsPerUser = max(1, maxStreamsPerUser)
        self.counts = counts
        self.events = events
    }

    /// Number of open streams, for `/metrics`.
    var streamCount: Int { state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } } }

    func subscribe(_ subscriber: LiveSubscriber) {
        let evicted = state.withLock { state -> LiveSubscriber? in
            var streams = state.subscribers[subscriber.userID, default: []]
            streams.append(subscriber)
            let oldest = streams.count > maxStreamsPerUser ? streams.removeFirst() : nil
            state.subscribers[subscriber.userID] = streams
            return oldest
        }
        subscriber.stream.onClose { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            self.unsubscribe(subscriber)
        }
        // The oldest stream makes room; told why, its client does not reconnect (and evict in turn).
        evicted?.close(reason: "replaced")
    }

    func unsubscribe(_ subscriber: LiveSubscriber) {
        state.withLock { state in
            state.subscribers[subscriber.userID]?.removeAll { $0 === subscriber }
            if state.subscribers[subscriber.userID]?.isEmpty == true { state.subscribers[subscriber.userID] = nil }
        }
    }

    /// A change committed by any process sharing the store (see ``LiveChange``).
    func receive(_ change: LiveChange) {
        switch change {
        case .events(let userIDs, let throughSeq):
            for userID in userIDs {
                eventsLogged(for: userID, through: throughSeq)
                countsChanged(for: userID)
            }
        case .counts(let userIDs):
            for userID in userIDs { countsChanged(for: userID) }
        case .resync:
            let userIDs = state.withLock { Array($0.subscribers.keys) }
            for userID in userIDs {
                catchUp(userID)
                countsChanged(for: userID)
            }
        }
    }

    /// Events of `userID` up to `seq` are in the log: streams that have not written them catch up.
    func eventsLogged(for userID: String, through seq: Int64) {
        guard subscribers(of: userID).contains(where: { $0.isBehind(seq) }) else { return }
        catchUp(userID)
    }

    /// Reads the log for `userID`'s streams and writes what each has not (a stream that just
    /// finished its replay asks for this, for what was logged while it replayed).
    func catchUp(_ userID: String) {
        schedule(userID) { $0.events = true }
    }

    /// A change touched `userID`'s counts: send them fresh to their streams.
    func countsChanged(for userID: String) {
        guard !subscribers(of: userID).isEmpty else { return }
        schedule(userID) { $0.counts = true }
    }

    /// Asks `userID`'s task for `work`, starting it unless it runs (then it looks once more).
    private func schedule(_ userID: String, _ ask: (inout Work) -> Void) {
        let start = state.withLock { state -> Bool in
            let running = state.working[userID] != nil
            ask(&state.working[userID, default: Work()])
            return !running
        }
        if start { Task { await work(for: userID) } }
    }

    /// Does what was asked for `userID`, events before counts, until nothing more is.
    private func work(for userID: String) async {
        while let work = takeWork(userID) {
            if work.events { await writeLoggedEvents(of: userID) }
            if work.counts { await sendCounts(of: userID) }
        }
    }

    /// What was asked for `userID` since the last look, or nil (and the task ends) when nothing.
    private func takeWork(_ userID: String) -> Work? {
        state.withLock { state in
            guard let work = state.working[userID], work.events || work.counts else {
                state.working[userID] = nil
                return nil
            }
            state.working[userID] = Work()
            return work
        }
    }

    private func writeLoggedEvents(of userID: String) async {
        while true {
            let streams = subscribers(of: userID)
            // A failed read is tried again at the user's next change (or the listener's resync).
            guard let from = streams.compactMap(\.cursor).min(),
                let logged = try? await events(userID, from, Self.catchUpBatch)
            else { return }
            for subscriber in streams { subscriber.deliver(logged) }
            if logged.count < Self.catchUpBatch { return }
        }
    }

    private func sendCounts(of userID: String) async {
        guard let current = try? await counts(userID) else { return }
        let frame = ServerSentEvent.counts(current).bytes
        for subscriber in subscribers(of: userID) { subscriber.deliverUnsequenced(frame) }
    }

    /// The comment that keeps idle streams (and any proxy between) open.
    private static let heartbeatFrame = ServerSentEvent.comment(" heartbeat")

    /// Writes a heartbeat comment to every open stream (and ends those whose token expired).
    func heartbeat(now: Date) {
        for subscriber in endExpired(now: now) {
            subscriber.deliverUnsequenced(Self.heartbeatFrame)
        }
    }

    /// Ends the streams whose token has expired with `event: closed` and reason `expired` (the
    /// client reconnects and meets the sign-in gate); answers the streams still open. Called every
    /// second, so a stream outlives its token by at most about a second.
    @discardableResult
    func endExpired(now: Date) -> [LiveSubscriber] {
        let all = state.withLock { state in state.subscribers.values.flatMap { $0 } }
        var open: [LiveSubscriber] = []
        open.reserveCapacity(all.count)
        for subscriber in all {
            if subscriber.expires <= now {
                subscriber.close(reason: "expired")
            } else {
                open.append(subscriber)
            }
        }
        return open
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

/// One open stream of one user. It starts out replaying the log for `Last-Event-ID`; then the
/// hub's catch-ups give it the logged events, of which it writes those above its cursor.
final class LiveSubscriber: Sendable {
    let userID: String
    let stream: ResponseStream
    /// When the token that opened the stream expires.
    let expires: Date

    private struct State {
        /// The highest seq this stream stands at: every event up to it was written or predates
        /// the stream. `nil` while the stream replays.
        var cursor: Int64?
        /// Unsequenced frames (counts, heartbeats) that arrived during the replay.
        var held: [[UInt8]] = []
    }

    private let state = Mutex(State())

    init(userID: String, stream: ResponseStream, expires: Date) {
        self.userID = userID
        self.stream = stream
        self.expires = expires
    }

    /// Where the stream stands, or `nil` while it replays (events logged meanwhile are read
    /// by the catch-up that follows its replay).
    var cursor: Int64? { state.withLock { $0.cursor } }

    /// Whether the stream, live, has not yet written an event with sequence `seq`.
    func isBehind(_ seq: Int64) -> Bool { state.withLock { $0.cursor.map { $0 < seq } ?? false } }

    /// Writes the events (oldest first) above the cursor and moves it on.
    func deliver(_ events: [StreamEventRecord]) {
        state.withLock { state in
            guard var cursor = state.cursor else { return }
            for event in events where event.seq > cursor {
                stream.write(ServerSentEvent(id: String(event.seq), event: event.kind, data: event.payload).bytes)
                cursor = event.seq
            }
            state.cursor = cursor
        }
    }

    /// Ends the stream with a final `event: closed` frame saying why (`replaced`, `expired`).
    func close(reason: String) {
        state.withLock { _ in
            _ = stream.write(ServerSentEvent(event: "closed", data: #"{"reason":"\#(reason)"}"#).bytes)
        }
        stream.finish()
    }

    func deliverUnsequenced(_ frame: [UInt8]) {
        state.withLock { state in
            if state.cursor == nil {
                state.held.append(frame)
            } else {
                stream.write(frame)
            }
        }
    }

    /// Writes `preamble`, the replayed events in order, then what arrived meanwhile, and goes
    /// live at `cursor` (the seq the client now stands at) or the last replayed event's, if higher.
    func finishReplay(preamble: [UInt8], _ events: [StreamEventRecord], cursor: Int64) {
        state.withLock { state in
            stream.write(preamble)
            var position = cursor
            for event in events where event.seq > position {
                stream.write(ServerSentEvent(id: String(event.seq), event: event.kind, data: event.payload).bytes)
                position = event.seq
            }
            for frame in state.held { stream.write(frame) }
            state.held = []
            state.cursor = position
        }
    }
}
