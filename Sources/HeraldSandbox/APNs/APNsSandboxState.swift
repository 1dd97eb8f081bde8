import Foundation

/// What the APNs look-alike remembers: accepted notifications, faults by device token, answers by
/// status. Kept behind the sandbox's one `Mutex`.
struct APNsSandboxState {
    /// A fault set for a token: what, since when, for how many more requests (nil: until cleared).
    struct FaultRule {
        var fault: APNsFault
        var setAt: Date
        var remaining: Int?
    }

    /// Oldest first, at most `acceptedLimit`.
    var accepted: [APNsNotification] = []
    var acceptedLimit: Int
    var faults: [String: FaultRule] = [:]
    var statusCounts: [Int: Int] = [:]

    /// Records `notification`, dropping the oldest quarter once full (one move per many appends).
    mutating func record(_ notification: APNsNotification) {
        if accepted.count >= acceptedLimit { accepted.removeFirst(max(1, acceptedLimit / 4)) }
        accepted.append(notification)
    }

    /// Takes back `notification`, recorded and counted as a 200 but never answered (the latest
    /// such record).
    mutating func forget(_ notification: APNsNotification) {
        if let index = accepted.lastIndex(of: notification) { accepted.remove(at: index) }
        let answered = statusCounts[200, default: 0] - 1
        statusCounts[200] = answered > 0 ? answered : nil
    }

    /// The fault for `token` on this request, counting it down.
    mutating func takeFault(for token: String) -> FaultRule? {
        guard var rule = faults[token] else { return nil }
        if let remaining = rule.remaining {
            rule.remaining = remaining - 1
            faults[token] = remaining > 1 ? rule : nil
        }
        return rule
    }
}
