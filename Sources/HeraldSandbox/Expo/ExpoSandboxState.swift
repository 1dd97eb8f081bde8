import Foundation

/// What the Expo look-alike remembers: accepted notifications, receipts by ticket id, faults by
/// push token, the size of each accepted send, answers by status. Kept behind the sandbox's one
/// `Mutex`.
struct ExpoSandboxState {
    /// A fault set for a token: what, and for how many more requests (nil: until cleared).
    struct FaultRule {
        var fault: ExpoFault
        var remaining: Int?
    }

    /// The receipt a ticket will have: ok, or an error with `details.error`.
    enum Receipt: Equatable {
        case ok
        case error(String, message: String)
    }

    /// How long Expo keeps a receipt: a day after the send.
    static let receiptLifetime: TimeInterval = 24 * 3600

    /// Oldest first, at most `acceptedLimit`.
    var accepted: [ExpoPushMessage] = []
    var acceptedLimit: Int
    /// The receipts of ok tickets, by ticket id, until ``receiptLifetime`` after the send.
    var receipts: [String: Receipt] = [:]
    /// Ticket ids with their send time, oldest first from `receiptOrderStart`: the expiry queue.
    private var receiptOrder: [(ticketID: String, at: Date)] = []
    private var receiptOrderStart = 0
    var faults: [String: FaultRule] = [:]
    /// The notifications of each send answered 200, in order (the most recent, up to `acceptedLimit`).
    var sendSizes: [Int] = []
    var statusCounts: [Int: Int] = [:]

    init(acceptedLimit: Int) {
        self.acceptedLimit = acceptedLimit
    }

    /// Records `messages`, dropping the oldest quarter once full.
    mutating func record(_ messages: [ExpoPushMessage]) {
        for message in messages {
            if accepted.count >= acceptedLimit { accepted.removeFirst(max(1, acceptedLimit / 4)) }
            accepted.append(message)
        }
    }

    /// Records one accepted send of `size` notifications, dropping the oldest quarter once full.
    mutating func recordSend(size: Int) {
        if sendSizes.count >= acceptedLimit { sendSizes.removeFirst(max(1, acceptedLimit / 4)) }
        sendSizes.append(size)
    }

    /// Keeps `receipt` for the ticket `ticketID` of a send at `at`, and forgets the receipts
    /// a day older than that.
    mutating func keep(_ receipt: Receipt, for ticketID: String, at: Date) {
        expireReceipts(now: at)
        receipts[ticketID] = receipt
        receiptOrder.append((ticketID, at))
    }

    /// Forgets the receipts of sends at least ``receiptLifetime`` before `now`.
    mutating func expireReceipts(now: Date) {
        while receiptOrderStart < receiptOrder.count,
            now.timeIntervalSince(receiptOrder[receiptOrderStart].at) >= Self.receiptLifetime
        {
            receipts[receiptOrder[receiptOrderStart].ticketID] = nil
            receiptOrderStart += 1
        }
        // One move per many expiries.
        if receiptOrderStart > 1_024, receiptOrderStart * 2 > receiptOrder.count {
            receiptOrder.removeFirst(receiptOrderStart)
            receiptOrderStart = 0
        }
    }

    /// Takes back a send recorded and counted as a 200 but never answered.
    mutating func forget(_ messages: [ExpoPushMessage]) {
        let tickets = Set(messages.map(\.ticketID))
        accepted.removeAll { tickets.contains($0.ticketID) }
        for ticket in tickets { receipts[ticket] = nil }
        if let index = sendSizes.lastIndex(of: messages.count) { sendSizes.remove(at: index) }
        let answered = statusCounts[200, default: 0] - 1
        statusCounts[200] = answered > 0 ? answered : nil
    }

    /// The fault for `token` on this request, counting it down.
    mutating func takeFault(for token: String) -> ExpoFault? {
        guard var rule = faults[token] else { return nil }
        if let remaining = rule.remaining {
            rule.remaining = remaining - 1
            faults[token] = remaining > 1 ? rule : nil
        }
        return rule.fault
    }

    /// The first whole-request fault among `tokens` (counted down), if any.
    mutating func takeRequestFault(for tokens: [String]) -> ExpoFault? {
        for token in tokens where faults[token]?.fault.failsRequest == true {
            return takeFault(for: token)
        }
        return nil
    }
}
