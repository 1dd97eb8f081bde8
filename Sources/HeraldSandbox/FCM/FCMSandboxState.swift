import Foundation

/// What the FCM look-alike remembers: accepted messages, faults by registration token, answers
/// by status. Kept behind the sandbox's one `Mutex`.
struct FCMSandboxState {
    /// A fault set for a token: what, and for how many more requests (nil: until cleared).
    struct FaultRule {
        var fault: FCMFault
        var remaining: Int?
    }

    /// Oldest first, at most `acceptedLimit`.
    var accepted: [FCMAcceptedMessage] = []
    var acceptedLimit: Int
    var faults: [String: FaultRule] = [:]
    var statusCounts: [Int: Int] = [:]

    /// Records `message`, dropping the oldest quarter once full (one move per many appends).
    mutating func record(_ message: FCMAcceptedMessage) {
        if accepted.count >= acceptedLimit { accepted.removeFirst(max(1, acceptedLimit / 4)) }
        accepted.append(message)
    }

    /// Takes back `message`, recorded and counted as a 200 but never answered.
    mutating func forget(_ message: FCMAcceptedMessage) {
        if let index = accepted.lastIndex(of: message) { accepted.remove(at: index) }
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
