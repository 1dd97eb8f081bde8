import Foundation
import HeraldModel
import HeraldServerModel

/// The push of one notification, built once and written for each provider (PUSH-11, PUSH-12).
///
/// Title and body are cut to 150 characters (``PushText``); every provider carries the same
/// ``PushData``; the badge is the recipient's unseen count. The push worker and the publisher's
/// preview (`GET /v1/notifications/{id}/push-preview`) both build from here.
public struct PushPayload: Sendable, Equatable {
    public var data: PushData
    /// The title as the banner shows it (cut).
    public var title: String
    /// The body as the banner shows it (cut).
    public var body: String
    /// The app icon badge: the recipient's unseen count, when known.
    public var badge: Int?
    /// A sound file name, or `default` (also when the publisher named none); `nil` for a silent
    /// push (the publisher asked for ``PushOptions/silentSound``).
    public var sound: String?
    /// `high` unless the publisher asked for `normal`.
    public var priority: PushOptions.Priority
    /// How long a provider keeps trying; its own default when `nil`, once only when 0.
    public var ttlSeconds: Int?
    /// Pushes with the same collapse id replace each other on the device.
    public var collapseId: String?

    /// The push of `notification` with the publisher's push `options`.
    public init(
        notification: InboxNotification, eventKind: String? = nil, badge: Int? = nil, options: PushOptions? = nil
    ) {
        self.data = PushData(notification: notification, eventKind: eventKind)
        self.title = PushText.truncate(notification.title)
        self.body = PushText.truncate(notification.body)
        self.badge = badge
        switch options?.sound {
        case nil: self.sound = PushOptions.defaultSound
        case PushOptions.silentSound: self.sound = nil
        case let name: self.sound = name
        }
        self.priority = options?.priority ?? .high
        self.ttlSeconds = options?.ttlSeconds
        self.collapseId = options?.collapseId
    }

    // MARK: APNs

    /// The `aps` dictionary, the same for a direct APNs push and FCM's APNs override.
    public var aps: APNsPayload.APS {
        APNsPayload.APS(alert: .init(title: title, body: body), sound: sound, badge: badge)
    }

    /// The APNs request body.
    public var apns: APNsPayload {
        APNsPayload(aps: aps, data: data.dictionary)
    }

    /// The APNs request headers: `apns-push-type: alert`, the topic (the app's bundle id),
    /// `apns-priority` 10 or 5, `apns-expiration` (when a TTL is set), `apns-collapse-id`, and
    /// `apns-id` = `id` (the delivery id, stable across retries; a UUID).
    public func apnsHeaders(topic: String, id: String, now: Date) -> [String: String] {
        var headers = commonAPNsHeaders(now: now)
        headers["apns-topic"] = topic
        headers["apns-id"] = id
        return headers
    }

    private func commonAPNsHeaders(now: Date) -> [String: String] {
        var headers = ["apns-push-type": "alert", "apns-priority": priority == .high ? "10" : "5"]
        if let ttlSeconds {
            // 0 asks APNs to try once and not store the push.
            let expiration = ttlSeconds == 0 ? 0 : Int64(now.timeIntervalSince1970) + Int64(ttlSeconds)
            headers["apns-expiration"] = String(expiration)
        }
        headers["apns-collapse-id"] = collapseId
        return headers
    }

    // MARK: FCM

    /// The FCM v1 request body for the device `token` (`nil` in a preview).
    public func fcm(token: String?, now: Date) -> FCMRequest {
        let android = FCMMessage.Android(
            priority: priority == .high ? .high : .normal, ttl: ttlSeconds.map { "\($0)s" }, collapseKey: collapseId,
            notification: sound.map { FCMMessage.Android.AndroidNotification(sound: $0) })
        let apns = FCMMessage.APNs(headers: commonAPNsHeaders(now: now), payload: .init(aps: aps))
        return FCMRequest(
            message: FCMMessage(
                token: token, notification: .init(title: title, body: body), data: data.dictionary, android: android,
                apns: apns))
    }

    // MARK: Expo

    /// The Expo push message for the Expo push token `to` (`nil` in a preview).
    public func expo(to: String?) -> ExpoMessage {
        ExpoMessage(
            to: to, title: title, body: body, data: data.dictionary, sound: sound, badge: badge,
            priority: priority == .high ? .high : .normal, ttl: ttlSeconds)
    }

    // MARK: Preview

    /// Every provider's body, without device tokens.
    public func preview(now: Date) -> PushPreview {
        PushPreview(data: data.dictionary, apns: apns, fcm: fcm(token: nil, now: now), expo: expo(to: nil))
    }
}

/// `GET /v1/notifications/{id}/push-preview`: what each provider would receive for one
/// notification (device tokens left out).
public struct PushPreview: Codable, Sendable, Equatable {
    /// The push data every provider carries (``PushData``).
    public var data: [String: String]
    public var apns: APNsPayload
    public var fcm: FCMRequest
    public var expo: ExpoMessage

    public init(data: [String: String], apns: APNsPayload, fcm: FCMRequest, expo: ExpoMessage) {
        self.data = data
        self.apns = apns
        self.fcm = fcm
        self.expo = expo
    }
}
