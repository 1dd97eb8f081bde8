/// The text a ``LiveChange`` travels as between processes (a PostgreSQL NOTIFY payload):
/// `e <throughSeq> <userID> <userID> ...` for events, `c <userID> ...` for counts.
///
/// User ids hold no spaces (`A-Z a-z 0-9 . _ : @ -`). A NOTIFY payload must stay under
/// 8,000 bytes, so a change for many users becomes several messages, each at most
/// ``maxBytes`` long: a 1,000-recipient publish of 36-character ids is five.
enum LiveChangeMessage {
    /// Longest message: PostgreSQL's 8,000-byte limit, less room for the schema prefix.
    static let maxBytes = 7_000

    /// The messages that carry `change`; none for ``LiveChange/resync``, which is never sent.
    static func encode(_ change: LiveChange, maxBytes: Int = maxBytes) -> [String] {
        let head: String
        let userIDs: [String]
        switch change {
        case .events(let users, let throughSeq):
            head = "e \(throughSeq)"
            userIDs = users
        case .counts(let users):
            head = "c"
            userIDs = users
        case .resync:
            return []
        }
        var messages: [String] = []
        var current = head
        var holdsUser = false
        for userID in userIDs {
            if holdsUser, current.utf8.count + 1 + userID.utf8.count > maxBytes {
                messages.append(current)
                current = head
            }
            current += " " + userID
            holdsUser = true
        }
        if holdsUser { messages.append(current) }
        return messages
    }

    /// The change `message` carries; `nil` for text that is not one (ignored by the listener).
    static func decode(_ message: String) -> LiveChange? {
        var fields = message.split(separator: " ").map(String.init)
        guard !fields.isEmpty else { return nil }
        switch fields.removeFirst() {
        case "e":
            guard !fields.isEmpty, let seq = Int64(fields.removeFirst()), !fields.isEmpty else { return nil }
            return .events(userIDs: fields, throughSeq: seq)
        case "c":
            guard !fields.isEmpty else { return nil }
            return .counts(userIDs: fields)
        default:
            return nil
        }
    }
}
