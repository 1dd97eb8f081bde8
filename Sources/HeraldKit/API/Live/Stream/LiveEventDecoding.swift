import Foundation
import HeraldModel

/// Turns the stream's events into ``LiveEvent``s.
enum LiveEventDecoding {
    /// The `reason` of the server's final `event: closed` frame (`replaced`, `expired`), if readable.
    static func closedReason(_ message: ServerSentEventParser.Message) -> String? {
        struct Closed: Decodable { var reason: String }
        return try? JSONDecoder().decode(Closed.self, from: Data(message.data.utf8)).reason
    }

    /// The live event of `message`; `nil` for an event this client does not know (a newer
    /// server's), which is skipped. A known event whose data cannot be read becomes `.reset`:
    /// the app refetches, which recovers whatever the event carried.
    static func event(_ message: ServerSentEventParser.Message) -> LiveEvent? {
        let data = Data(message.data.utf8)
        do {
            switch message.event {
            case "notification.created":
                return .created(try WireJSON.decoder.decode(InboxNotification.self, from: data))
            case "notification.updated":
                return .updated(try WireJSON.decoder.decode(NotificationChange.self, from: data))
            case "counts":
                return .counts(try WireJSON.decoder.decode(Counts.self, from: data))
            case "reset":
                return .reset
            default:
                return nil
            }
        } catch {
            return .reset
        }
    }
}
