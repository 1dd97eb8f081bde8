import FoundationEssentials
import HeraldModel

/// Reads an Expo push request as strictly as the Expo push service: a JSON object or an array of
/// them, each with a `to` that is one Expo push token or an array of them, and fields of the
/// documented types only. A mistake is a ``Refusal`` with Expo's request-error code.
struct ExpoRequestReader {
    /// A whole-request error: `{"errors": [{"code", "message"}]}` with `status`.
    struct Refusal: Error, Equatable {
        var status: Int
        var code: String
        var message: String
    }

    /// One recipient of one message, before it gets a ticket.
    struct Recipient {
        var to: String
        var fields: [String: JSONValue]
    }

    /// Expo's limit on the notifications of one request (each recipient of each message counts).
    static let maxNotifications = 100
    /// Expo's limit on the ids of one receipts request.
    static let maxReceiptIDs = 1_000
    /// Expo's limit on one message: "the total notification payload must be at most 4096
    /// bytes"; over it the message's ticket is the error `MessageTooBig`.
    static let maxMessageBytes = 4_096

    /// The bytes one recipient's message counts against ``maxMessageBytes``: its fields but `to`,
    /// as JSON.
    static func messageBytes(_ fields: [String: JSONValue]) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(fields).count) ?? 0
    }

    /// The documented fields besides `to`, with the type each must have.
    private static let fieldTypes: [String: FieldType] = [
        "title": .string, "body": .string, "subtitle": .string, "sound": .sound, "badge": .count,
        "data": .object, "ttl": .count, "expiration": .count, "priority": .priority, "channelId": .string,
        "categoryId": .string, "mutableContent": .bool, "interruptionLevel": .interruptionLevel,
        "richContent": .richContent, "collapseId": .string, "_contentAvailable": .bool, "icon": .string,
        // Legacy, still sent by exponent_server_sdk when set.
        "_displayInForeground": .bool,
    ]

    private enum FieldType {
        case string, count, object, bool, priority, sound, interruptionLevel, richContent
    }

    /// The recipients of a send body, in order (a message to several tokens gives one each).
    func recipients(of body: [UInt8]) throws(Refusal) -> [Recipient] {
        let messages: [JSONValue]
        switch try Self.decode(body) {
        case .array(let array): messages = array
        case .object(let object): messages = [.object(object)]
        default: throw Self.invalid("the body must be a message object or an array of message objects")
        }
        var recipients: [Recipient] = []
        for (index, message) in messages.enumerated() {
            guard case .object(var fields) = message else { throw Self.invalid("\"[\(index)]\" must be an object") }
            let tokens = try Self.tokens(fields.removeValue(forKey: "to"), index: index)
            for (name, value) in fields {
                guard let type = Self.fieldTypes[name] else { throw Self.invalid("\"\(name)\" is not allowed") }
                guard Self.matches(value, type) else {
                    throw Self.invalid("\"\(name)\" of message \(index) has the wrong type or value")
                }
            }
            recipients += tokens.map { Recipient(to: $0, fields: fields) }
        }
        guard !recipients.isEmpty else { throw Self.invalid("the request has no messages") }
        guard recipients.count <= Self.maxNotifications else {
            throw Refusal(
                status: 400, code: "PUSH_TOO_MANY_NOTIFICATIONS",
                message: "You are trying to send more than 100 push notifications in one request.")
        }
        return recipients
    }

    /// The ticket ids of a receipts body `{"ids": [...]}`.
    func receiptIDs(of body: [UInt8]) throws(Refusal) -> [String] {
        guard case .object(let object) = try Self.decode(body), object.count == 1,
            case .array(let values) = object["ids"]
        else { throw Self.invalid("the body must be {\"ids\": [receipt ids]}") }
        var ids: [String] = []
        for value in values {
            guard case .string(let id) = value, !id.isEmpty else { throw Self.invalid("every id must be a string") }
            ids.append(id)
        }
        guard ids.count <= Self.maxReceiptIDs else {
            throw Refusal(
                status: 400, code: "PUSH_TOO_MANY_RECEIPTS",
                message: "You are trying to get more than 1000 push receipts in one request.")
        }
        return ids
    }

    /// Whether `token` is an Expo push token: `ExponentPushToken[...]` or `ExpoPushToken[...]`.
    static func isExpoPushToken(_ token: String) -> Bool {
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] where token.hasPrefix(prefix) && token.hasSuffix("]") {
            let inner = token.dropFirst(prefix.count).dropLast()
            return !inner.isEmpty && !inner.contains("[") && !inner.contains("]")
        }
        return false
    }

    private static func decode(_ body: [UInt8]) throws(Refusal) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            throw invalid("the body is not JSON")
        }
    }

    private static func tokens(_ value: JSONValue?, index: Int) throws(Refusal) -> [String] {
        let values: [JSONValue]
        switch value {
        case .string(let token): values = [.string(token)]
        case .array(let array) where !array.isEmpty: values = array
        default: throw invalid("\"to\" of message \(index) must be an Expo push token or an array of them")
        }
        var tokens: [String] = []
        for value in values {
            guard case .string(let token) = value, isExpoPushToken(token) else {
                throw invalid("\"to\" of message \(index) must be an Expo push token or an array of them")
            }
            tokens.append(token)
        }
        return tokens
    }

    private static func matches(_ value: JSONValue, _ type: FieldType) -> Bool {
        switch (type, value) {
        case (.string, .string), (.object, .object), (.bool, .bool), (.sound, .string), (.sound, .null):
            return true
        case (.sound, .object(let sound)):
            // iOS critical alerts: {critical?: boolean, name?: string | null, volume?: number (0 to 1)}.
            return sound.allSatisfy { key, value in
                switch (key, value) {
                case ("critical", .bool), ("name", .string), ("name", .null): true
                case ("volume", .number(let volume)): (0...1).contains(volume)
                default: false
                }
            }
        case (.interruptionLevel, .string(let level)):
            return ["active", "critical", "passive", "time-sensitive"].contains(level)
        case (.richContent, .object(let content)):
            return content.allSatisfy { key, value in
                if case .string = value { return key == "image" }
                return false
            }
        case (.count, .number(let number)): return number >= 0 && number == number.rounded()
        case (.priority, .string(let priority)): return ["default", "normal", "high"].contains(priority)
        default: return false
        }
    }

    private static func invalid(_ message: String) -> Refusal {
        Refusal(status: 400, code: "VALIDATION_ERROR", message: message)
    }
}
