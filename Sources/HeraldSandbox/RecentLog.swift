/// The most recent entries a look-alike accepted, oldest first, at most `limit`: once full, the
/// oldest quarter goes (one move per many appends).
struct RecentLog<Entry: Equatable> {
    private(set) var entries: [Entry] = []
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ entry: Entry) {
        if entries.count >= limit { entries.removeFirst(max(1, limit / 4)) }
        entries.append(entry)
    }

    /// Takes back the latest `entry` (an answer that never left), if it is still kept.
    mutating func removeLast(_ entry: Entry) {
        if let index = entries.lastIndex(of: entry) { entries.remove(at: index) }
    }

    /// Takes back every entry `isTaken` picks.
    mutating func removeAll(where isTaken: (Entry) -> Bool) {
        entries.removeAll(where: isTaken)
    }
}

extension RecentLog: Sendable where Entry: Sendable {}
