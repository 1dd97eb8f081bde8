import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// Builds the APNs request for one delivery, and refuses what APNs would refuse before a byte
/// is sent.
public enum APNsRequest {
    /// APNs's limit on the JSON body of an alert push.
    public static let maxPayloadBytes = 4_096
    /// APNs's limit on `apns-collapse-id`.
    public static let maxCollapseIDBytes = 64

    /// Why a push cannot be sent as it is; `reason` spells it as APNs would.
    public struct Refusal: Error, Sendable, Equatable {
        /// `PayloadTooLarge`, `BadCollapseId` or `BadDeviceToken`.
        public var reason: String
        /// Whether the device token itself is at fault (so the device is pruned).
        public var prunesDevice: Bool { reason == "BadDeviceToken" }
    }

    /// `POST /3/device/<deviceToken>` on `configuration.baseURL` carrying `payload`'s APNs body,
    /// with `apns-id` = `deliveryID` and `authorization: bearer <providerToken>`.
    ///
    /// `apns-expiration`: absent without a TTL (APNs then stores the push by its own policy), `0`
    /// for a TTL of 0 (one attempt, never stored), otherwise `expiresAt` in epoch seconds: the
    /// delivery's fixed expiry, so a retry does not stretch it (`now + TTL` when `expiresAt` is
    /// nil). Throws ``Refusal`` for a body over ``maxPayloadBytes``, a collapse id over
    /// ``maxCollapseIDBytes`` or a device token that is not hexadecimal.
    public static func make(
        deviceToken: String, deliveryID: String, payload: PushPayload, expiresAt: Date?, providerToken: String,
        configuration: APNsConfiguration, now: Date
    ) throws(Refusal) -> HTTP2Request {
        guard isHexToken(deviceToken) else { throw Refusal(reason: "BadDeviceToken") }
        if let collapseId = payload.collapseId, collapseId.utf8.count > maxCollapseIDBytes {
            throw Refusal(reason: "BadCollapseId")
        }
        let body = encode(payload)
        guard body.count <= maxPayloadBytes else { throw Refusal(reason: "PayloadTooLarge") }
        let fields = payload.apnsHeaders(topic: configuration.topic, id: deliveryID, now: now, expiresAt: expiresAt)
        return request(
            deviceToken: deviceToken, fields: fields, body: body, providerToken: providerToken, configuration)
    }

    /// `POST /3/device/<deviceToken>` carrying the Live Activity push `payload` to an ActivityKit
    /// token, with `apns-id` = `deliveryID` and, with a TTL, `apns-expiration` = `expiresAt` in epoch
    /// seconds (the delivery's fixed expiry, so a retry does not stretch it; `0` for a TTL of 0). Throws ``Refusal``
    /// for a body over ``maxPayloadBytes`` or a token that is not hexadecimal.
    public static func make(
        deviceToken: String, deliveryID: String, liveActivity payload: LiveActivityPayload, expiresAt: Date?,
        providerToken: String, configuration: APNsConfiguration
    ) throws(Refusal) -> HTTP2Request {
        guard isHexToken(deviceToken) else { throw Refusal(reason: "BadDeviceToken") }
        let body = payload.body
        guard body.count <= maxPayloadBytes else { throw Refusal(reason: "PayloadTooLarge") }
        var fields = payload.apnsHeaders(topic: configuration.topic, id: deliveryID)
        if let expiresAt {
            // A TTL of 0 (expiry at the publish time): one attempt, never stored, as for alerts.
            let expiry = LiveActivityPayload.seconds(expiresAt)
            let stored = expiry > LiveActivityPayload.seconds(payload.content.timestamp)
            fields.append(("apns-expiration", stored ? String(expiry) : "0"))
        }
        return request(
            deviceToken: deviceToken, fields: fields, body: body, providerToken: providerToken, configuration)
    }

    /// `fields` (the `apns-*` headers) go out in the order given, after the authorization and
    /// the content type.
    private static func request(
        deviceToken: String, fields: [(name: String, value: String)], body: [UInt8], providerToken: String,
        _ configuration: APNsConfiguration
    ) -> HTTP2Request {
        var headers = [
            HTTP2Header("authorization", "bearer \(providerToken)"), HTTP2Header("content-type", "application/json"),
        ]
        headers.reserveCapacity(2 + fields.count)
        for field in fields { headers.append(HTTP2Header(field.name, field.value)) }
        return HTTP2Request(
            method: "POST", url: "\(configuration.baseURL)/3/device/\(deviceToken)", headers: headers, body: body)
    }

    /// The JSON body of `payload` (``PushPayload/apns``): what `JSONEncoder` writes for it,
    /// written directly from the payload's fields, with no dictionary of the data built on the
    /// way (this runs once per push).
    static func encode(_ payload: PushPayload) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        let aps = payload.aps
        writer.raw(#"{"aps":{"#)
        var separator = false
        func key(_ name: StaticString) {
            if separator { writer.raw(",") }
            separator = true
            writer.raw("\"")
            writer.raw(name)
            writer.raw("\":")
        }
        if let alert = aps.alert {
            key("alert")
            writer.raw(#"{"title":"#)
            writer.string(alert.title)
            if let subtitle = alert.subtitle {
                writer.raw(#","subtitle":"#)
                writer.string(subtitle)
            }
            writer.raw(#","body":"#)
            writer.string(alert.body)
            writer.raw("}")
        }
        if let badge = aps.badge {
            key("badge")
            writer.int(badge)
        }
        if let sound = aps.sound {
            key("sound")
            if sound.critical {
                writer.raw(#"{"critical":1,"name":"#)
                writer.string(sound.name)
                if let volume = sound.volume {
                    writer.raw(#","volume":"#)
                    writer.double(volume)
                }
                writer.raw("}")
            } else {
                writer.string(sound.name)
            }
        }
        if let threadId = aps.threadId {
            key("thread-id")
            writer.string(threadId)
        }
        if let category = aps.category {
            key("category")
            writer.string(category)
        }
        if let contentAvailable = aps.contentAvailable {
            key("content-available")
            writer.int(contentAvailable)
        }
        if let mutableContent = aps.mutableContent {
            key("mutable-content")
            writer.int(mutableContent)
        }
        if let interruptionLevel = aps.interruptionLevel {
            key("interruption-level")
            writer.string(interruptionLevel)
        }
        if let relevanceScore = aps.relevanceScore {
            key("relevance-score")
            writer.double(relevanceScore)
        }
        writer.raw("}")
        payload.forEachAPNsField { key, value in
            writer.raw(",")
            writer.string(key)
            writer.raw(":")
            writer.string(value)
        }
        writer.raw("}")
        return writer.bytes
    }

    /// Whether `token` is a non-empty run of hex digits (a device token as iOS reports it),
    /// and so safe in the URL path.
    static func isHexToken(_ token: String) -> Bool {
        !token.isEmpty
            && token.utf8.allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            }
    }
}
