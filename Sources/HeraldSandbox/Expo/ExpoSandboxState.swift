import FoundationEssentials

/// What the Expo look-alike remembers: accepted notifications, receipts by ticket id, faults by
/// push token, the size of each accepted send, answers by status. Kept behind the sandbox's one
/// `Mutex`.
struct ExpoSandboxState {
    /// The receipt a ticket will have: ok, or an error with `details.error`.
    enum Receipt: Equatable {
        case ok
        case error(String, message: String)
    }

    /// How long Expo keeps a receipt: a day after the send.
    static let receiptLifetime: TimeInterval = 24 * 3600

    var accepted: RecentLog<ExpoPushMessage>
    /// The receipts of ok tickets, by ticket id, until ``receiptLifetime`` after the send.
    var receipts: [String: Receipt] = [:]
    /// Ticket ids with their send time, oldest first from `receiptOrderStart`: the expiry queue.
    private var receiptOrder: [(ticketID: String, at: Date)] = []
    private var receiptOrderStart = 0
    var faults = FaultTable<ExpoFault>()
    /// The notifications of each send answered 200, in order (the most recent, as many as
    /// notifications are kept).
    var sendSizes: RecentLog<Int>
    var statusCounts: [Int: Int] = [:]

    init(acceptedLimit: Int) {
        accepted = RecentLog(limit: acceptedLimit)
        sendSizes = RecentLog(limit: acceptedLimit)
    }

    /// Records one send answered 200: the `messages` it accepted, and its size.
    mutating func record(_ messages: [ExpoPushMessage], sendSize: Int) {
        for message in messages { accepted.append(message) }
        sendSizes.append(sendSize)
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
    mutating func forget(_ messages: [ExpoPushMessage], sendSize: Int) {
        let tickets = Set(messages.map(\.ticketID))
        accepted.removeAll { tickets.contains($0.ticketID) }
        for ticket in tickets { receipts[ticket] = nil }
        sendSizes.removeLast(sendSize)
        statusCounts.takeBack(200)
    }

    /// The first whole-request fault among `tokens` (counted down), if any.
    mutating func takeRequestFault(for tokens: [String]) -> ExpoFault? {
        for token in tokens where faults.peek(token)?.failsRequest == true {
            return faults.take(for: token)?.fault
        }
        return nil
    }
}
