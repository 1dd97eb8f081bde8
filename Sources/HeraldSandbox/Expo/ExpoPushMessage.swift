import FoundationEssentials
import HeraldModel

/// One notification the Expo look-alike accepted: a message for one recipient token, as it
/// arrived, with the ticket it was given.
public struct ExpoPushMessage: Sendable, Equatable {
    /// The recipient (`ExponentPushToken[...]` or `ExpoPushToken[...]`).
    public var to: String
    /// The message's fields other than `to`, as sent.
    public var fields: [String: JSONValue]
    /// The push ticket id, which is also its receipt id.
    public var ticketID: String
    public var receivedAt: Date

    /// A string field (`title`, `body`, `sound`, `priority`, ...), when present and a string.
    public func string(_ name: String) -> String? {
        if case .string(let value) = fields[name] { return value }
        return nil
    }

    /// A number field (`badge`, `ttl`, `expiration`), when present and a number.
    public func number(_ name: String) -> Double? {
        if case .number(let value) = fields[name] { return value }
        return nil
    }

    /// The `data` object with its string values (Herald sends only strings).
    public var data: [String: String] {
        guard case .object(let object) = fields["data"] else { return [:] }
        return object.compactMapValues { value in
            if case .string(let text) = value { return text }
            return nil
        }
    }
}
