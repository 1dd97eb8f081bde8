import HeraldModel

/// Percent-decoding of request targets, shared by the transport and the in-process client
/// so both see exactly the same `Request`.
enum URLDecoding {
    /// Splits "/path?query#fragment" into the raw path and the raw query (nil without "?").
    static func splitTarget(_ target: String) -> (path: Substring, query: Substring?) {
        var target = Substring(target)
        if let hash = target.firstIndex(of: "#") {
            target = target[..<hash]
        }
        guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    static func decodePath<S: StringProtocol>(_ raw: S) -> String {
        percentDecode(raw, plusIsSpace: false)
    }

    /// Parses "a=1&b=x%20y&a=2" keeping the first value of each name.
    static func parseQuery<S: StringProtocol>(_ raw: S) -> [String: String] {
        var result: [String: String] = [:]
        for pair in Substring(raw).split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            guard !name.isEmpty else { continue }
            addQueryValue(&result, rawName: name, rawValue: value)
        }
        return result
    }

    /// Adds one raw (still encoded) query parameter unless the name is already present.
    static func addQueryValue<S: StringProtocol>(_ query: inout [String: String], rawName: S, rawValue: S) {
        let name = percentDecode(rawName, plusIsSpace: true)
        guard query[name] == nil else { return }
        query[name] = percentDecode(rawValue, plusIsSpace: true)
    }

    static func percentDecode<S: StringProtocol>(_ raw: S, plusIsSpace: Bool) -> String {
        raw.percentDecodedLeniently(plusIsSpace: plusIsSpace)
    }
}
