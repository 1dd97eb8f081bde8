import FoundationEssentials
import HeraldModel

/// Builds the FCM HTTP v1 `messages:send` request for one delivery, and refuses what FCM would
/// refuse for its size before a byte is sent.
public enum FCMSendRequest {
    /// FCM's limit on a message's payload: the data keys and values, with the notification's
    /// title and body ("4096 bytes for most messages").
    public static let maxPayloadBytes = 4_096

    /// Why a push cannot be sent as it is.
    public struct Refusal: Error, Sendable, Equatable {
        /// `MessageTooBig`.
        public var reason: String
    }

    /// `POST {baseURL}/v1/projects/{project}/messages:send` with `authorization: Bearer
    /// <accessToken>` and the JSON body `{"message": ...}` of `payload` for `deviceToken`.
    ///
    /// The time to live counts down to the delivery's fixed `expiresAt`, so a retry does not
    /// stretch it: `android.ttl` is the whole seconds left (`"0s"` once it has passed, or for a
    /// TTL of 0: now or never) and the APNs override's `apns-expiration` is `expiresAt` in epoch
    /// seconds. Without a TTL both are left out (FCM keeps a message up to four weeks). Throws
    /// ``Refusal`` for a payload over ``maxPayloadBytes``.
    public static func make(
        deviceToken: String, payload: PushPayload, expiresAt: Date?, accessToken: String,
        configuration: FCMConfiguration, now: Date
    ) throws(Refusal) -> HTTP2Request {
        guard payloadBytes(payload) <= maxPayloadBytes else { throw Refusal(reason: "MessageTooBig") }
        let body = encode(message(deviceToken: deviceToken, payload: payload, expiresAt: expiresAt, now: now))
        return HTTP2Request(
            method: "POST", url: configuration.sendURL,
            headers: [
                HTTP2Header("authorization", "Bearer \(accessToken)"),
                HTTP2Header("content-type", "application/json; charset=utf-8"),
            ],
            body: body)
    }

    /// The message for `deviceToken`: ``PushPayload/fcm(token:now:)`` with the TTL counted down
    /// to `expiresAt`.
    static func message(deviceToken: String, payload: PushPayload, expiresAt: Date?, now: Date) -> FCMRequest {
        var request = payload.fcm(token: deviceToken, now: now)
        if let expiresAt, let ttl = payload.ttlSeconds, ttl > 0 {
            let left = max(0, Int64(expiresAt.timeIntervalSince(now).rounded(.down)))
            request.message.android.ttl = "\(left)s"
            request.message.apns.headers["apns-expiration"] = String(
                Int64(expiresAt.timeIntervalSince1970.rounded(.down)))
        }
        return request
    }

    /// The bytes FCM counts against ``maxPayloadBytes``.
    public static func payloadBytes(_ payload: PushPayload) -> Int {
        // A data-only message (a background update) has no title or body.
        let text = payload.isBackground ? 0 : payload.title.utf8.count + payload.body.utf8.count
        return payload.data.dictionary.reduce(text) { total, entry in
            total + entry.key.utf8.count + entry.value.utf8.count
        }
    }

    private static func encode(_ request: FCMRequest) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(request))
        } catch {
            preconditionFailure("an FCM message is strings, numbers and string maps: it always encodes (\(error))")
        }
    }
}
