import FoundationEssentials
import HeraldModel

/// Builds the two requests of the Expo push service: `POST /--/api/v2/push/send` with a JSON
/// array of messages, and `POST /--/api/v2/push/getReceipts` with `{"ids": [...]}`.
public enum ExpoRequest {
    /// The path of a send.
    public static let sendPath = "/--/api/v2/push/send"
    /// The path of a receipts request.
    public static let receiptsPath = "/--/api/v2/push/getReceipts"

    /// Expo's limit on one message ("the total notification payload must be at most 4096 bytes"):
    /// over it, its ticket answers `MessageTooBig`.
    public static let maxMessageBytes = 4_096

    /// The bytes `message` counts against ``maxMessageBytes``: its JSON as sent.
    public static func messageBytes(_ message: ExpoMessage) -> Int { encode(message).count }

    /// One send of `messages` (1 to ``ExpoConfiguration/maxMessagesPerRequest``), as a JSON array.
    public static func send(_ messages: [ExpoMessage], configuration: ExpoConfiguration) -> HTTP2Request {
        precondition(
            (1...ExpoConfiguration.maxMessagesPerRequest).contains(messages.count),
            "an Expo send carries 1 to 100 messages")
        return post(configuration.baseURL + sendPath, body: encode(messages), configuration: configuration)
    }

    /// One receipts request for `ids` (1 to ``ExpoConfiguration/maxReceiptIDsPerRequest``).
    public static func receipts(ids: [String], configuration: ExpoConfiguration) -> HTTP2Request {
        precondition(
            (1...ExpoConfiguration.maxReceiptIDsPerRequest).contains(ids.count),
            "an Expo receipts request carries 1 to 1,000 ids")
        return post(
            configuration.baseURL + receiptsPath, body: encode(ReceiptIDs(ids: ids)), configuration: configuration)
    }

    private struct ReceiptIDs: Encodable {
        var ids: [String]
    }

    /// No `accept-encoding`: the answer comes uncompressed, which every HTTP/2 engine reads as
    /// it is (the nghttp2 engine passes that header through and decodes nothing).
    private static func post(_ url: String, body: [UInt8], configuration: ExpoConfiguration) -> HTTP2Request {
        var headers = [HTTP2Header("accept", "application/json"), HTTP2Header("content-type", "application/json")]
        if let token = configuration.accessToken { headers.append(HTTP2Header("authorization", "Bearer \(token)")) }
        return HTTP2Request(method: "POST", url: url, headers: headers, body: body)
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and string maps always encode.
        return Array((try? encoder.encode(value)) ?? Data())
    }
}

extension ExpoMessage {
    /// This message with `ttl` shortened to what is left of a delivery that expires at
    /// `expiresAt` (so a retry does not stretch it); unchanged without an expiry or a TTL.
    public func remainingTTL(expiresAt: Date?, now: Date) -> ExpoMessage {
        guard let expiresAt, let ttl, ttl > 0 else { return self }
        var message = self
        message.ttl = max(0, min(ttl, Int(expiresAt.timeIntervalSince(now).rounded(.down))))
        return message
    }
}
