import FoundationEssentials
import HeraldHTTP
import HeraldModel

/// The optional filters of a publisher's list query (`GET /v1/notifications`, `GET /v1/messages`).
extension Request {
    /// The query parameter `name`; nil when absent or empty (an empty filter filters nothing).
    func filter(_ name: String) -> String? {
        query[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The RFC 3339 time of query parameter `name` (`from`, `until`); nil when absent, 400
    /// `invalid_time` naming it when it is not one.
    func timeFilter(_ name: String) throws -> Date? {
        guard let raw = filter(name) else { return nil }
        guard let date = RFC3339.parse(raw) else {
            throw HTTPError(
                400, code: "invalid_time",
                message: "`\(name)` must be an RFC 3339 time such as 2026-01-31T09:30:00Z.", field: name)
        }
        return date
    }
}
