import FoundationEssentials

/// The faults set on a look-alike by token: what, since when, and for how many more requests
/// (nil: until cleared).
struct FaultTable<Fault> {
    struct Rule {
        var fault: Fault
        var setAt: Date
        var remaining: Int?
    }

    private var rules: [String: Rule] = [:]

    /// Makes requests to `token` meet `fault`, replacing its previous fault.
    mutating func set(_ fault: Fault, for token: String, at setAt: Date, times: Int?) {
        rules[token] = Rule(fault: fault, setAt: setAt, remaining: times)
    }

    mutating func clear(_ token: String) {
        rules[token] = nil
    }

    mutating func clearAll() {
        rules = [:]
    }

    /// The fault set for `token`, without counting a request.
    func peek(_ token: String) -> Fault? {
        rules[token]?.fault
    }

    /// The rule for `token` on this request, counting it down.
    mutating func take(for token: String) -> Rule? {
        guard var rule = rules[token] else { return nil }
        if let remaining = rule.remaining {
            rule.remaining = remaining - 1
            rules[token] = remaining > 1 ? rule : nil
        }
        return rule
    }
}

extension [Int: Int] {
    /// Takes back one answer counted under `status` (one that never left).
    mutating func takeBack(_ status: Int) {
        let count = self[status, default: 0] - 1
        self[status] = count > 0 ? count : nil
    }
}

extension FaultTable: Sendable where Fault: Sendable {}
extension FaultTable.Rule: Sendable where Fault: Sendable {}
