import FoundationEssentials
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
    /// A sound file name or `default` (also when the publisher named none), or a critical sound;
    /// `nil` for a silent push (the publisher asked for ``PushOptions/silentSound``) and a
    /// background update.
    public var sound: PushSound?
    /// `high` unless the publisher asked for `normal`; always `normal` for a background update.
    public var priority: PushOptions.Priority
    /// How long a provider keeps trying; its own default when `nil`, once only when 0.
    public var ttlSeconds: Int?
    /// Pushes with the same collapse id replace each other on the device.
    public var collapseId: String?
    /// The line between title and body (cut as they are).
    public var subtitle: String?
    public var interruptionLevel: PushOptions.InterruptionLevel?
    public var relevanceScore: Double?
    public var threadId: String?
    public var category: String?
    public var imageURL: String?
    /// No banner, sound or badge: the app wakes to refresh (``PushOptions/contentAvailable``).
    public var isBackground: Bool
    public var channelId: String?
    public var analyticsLabel: String?

    /// The push of `notification` with the publisher's push `options`.
    public init(
        notification: InboxNotification, eventKind: String? = nil, badge: Int? = nil, options: PushOptions? = nil
    ) {
        self.data = PushData(notification: notification, eventKind: eventKind)
        self.title = PushText.truncate(notification.title)
        self.body = PushText.truncate(notification.body)
        self.isBackground = options?.isBackground ?? false
        self.badge = isBackground ? nil : badge
        switch options?.sound {
        case _ where isBackground: self.sound = nil
        case nil: self.sound = PushSound(name: PushOptions.defaultSound)
        case let sound? where sound.isSilent: self.sound = nil
        case let sound: self.sound = sound
        }
        self.priority = isBackground ? .normal : options?.priority ?? .high
        self.ttlSeconds = options?.ttlSeconds
        self.collapseId = options?.collapseId
        self.subtitle = options?.subtitle.map { PushText.truncate($0) }
        self.interruptionLevel = options?.interruptionLevel
        self.relevanceScore = options?.relevanceScore
        self.threadId = options?.threadId
        self.category = options?.category
        self.imageURL = options?.imageURL
        self.channelId = options?.channelId
        self.analyticsLabel = options?.analyticsLabel
    }

    // MARK: APNs

    /// The `aps` dictionary, the same for a direct APNs push and FCM's APNs override. A
    /// background update carries `content-available` alone, as Apple requires.
    public var aps: APNsPayload.APS {
        guard !isBackground else { return APNsPayload.APS(alert: nil, contentAvailable: 1) }
        return APNsPayload.APS(
            alert: .init(title: title, subtitle: subtitle, body: body),
            sound: sound.map { APNsPayload.Sound(name: $0.name, critical: $0.critical, volume: $0.volume) },
            badge: badge, threadId: threadId, category: category, mutableContent: imageURL == nil ? nil : 1,
            interruptionLevel: interruptionLevel?.rawValue, relevanceScore: relevanceScore)
    }

    /// The APNs request body: `aps`, the push data and, for the notification service extension,
    /// the image URL beside them (``PushOptions/imageURLPayloadKey``).
    public var apns: APNsPayload {
        var top: [String: String] = [:]
        forEachAPNsField { key, value in top[key] = value }
        return APNsPayload(aps: aps, data: top)
    }

    /// The fields of ``apns`` beside `aps`, visited without building its dictionary (the
    /// request's body writes them once, ``APNsRequest/encode(_:)``): the push data, and the image
    /// URL under its key, replacing a publisher's value there.
    func forEachAPNsField(_ body: (String, String) -> Void) {
        data.forEachField { key, value in
            if imageURL == nil || key != PushOptions.imageURLPayloadKey { body(key, value) }
        }
        if let imageURL { body(PushOptions.imageURLPayloadKey, imageURL) }
    }

    /// The APNs request headers, in the order they go out: `apns-id` = `id` (the delivery id,
    /// stable across retries; a UUID), `apns-push-type` (`alert`, or `background` at priority 5
    /// for a background update), `apns-topic` (the app's bundle id), `apns-priority` 10 or 5,
    /// `apns-expiration` (when a TTL is set) and `apns-collapse-id`. Without an `id` and a
    /// `topic`, FCM's APNs override, which carries neither.
    ///
    /// The expiration: `0` for a TTL of 0 (try once, never store), otherwise `expiresAt` in epoch
    /// seconds (a delivery's fixed expiry, so a retry does not stretch it), or `now` plus the TTL
    /// without one. A list, not a dictionary: each push writes these once, in this order.
    public func apnsHeaders(
        topic: String? = nil, id: String? = nil, now: Date, expiresAt: Date? = nil
    ) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)
        if let id { headers.append(("apns-id", id)) }
        headers.append(("apns-push-type", isBackground ? "background" : "alert"))
        if let topic { headers.append(("apns-topic", topic)) }
        headers.append(("apns-priority", priority == .high ? "10" : "5"))
        if let ttlSeconds {
            let expiration =
                if ttlSeconds == 0 {
                    Int64(0)
                } else if let expiresAt {
                    Int64(expiresAt.timeIntervalSince1970.rounded(.down))
                } else {
                    Int64(now.timeIntervalSince1970) + Int64(ttlSeconds)
                }
            headers.append(("apns-expiration", String(expiration)))
        }
        if let collapseId { headers.append(("apns-collapse-id", collapseId)) }
        return headers
    }

    // MARK: FCM

    /// The FCM v1 request body for the device `token` (`nil` in a preview): a data-only message
    /// for a background update.
    public func fcm(token: String?, now: Date) -> FCMRequest {
        var androidNotification: FCMMessage.Android.AndroidNotification?
        if !isBackground, sound != nil || category != nil || channelId != nil {
            androidNotification = .init(sound: sound?.name, clickAction: category, channelId: channelId)
        }
        let android = FCMMessage.Android(
            priority: priority == .high ? .high : .normal, ttl: ttlSeconds.map { "\($0)s" }, collapseKey: collapseId,
            notification: androidNotification)
        let apns = FCMMessage.APNs(
            headers: Dictionary(uniqueKeysWithValues: apnsHeaders(now: now).map { ($0.name, $0.value) }),
            payload: .init(aps: aps),
            fcmOptions: imageURL.map { FCMMessage.Options(image: $0) })
        return FCMRequest(
            message: FCMMessage(
                token: token,
                notification: isBackground ? nil : .init(title: title, body: body, image: imageURL),
                data: data.dictionary, android: android, apns: apns,
                fcmOptions: analyticsLabel.map { FCMMessage.Options(analyticsLabel: $0) }))
    }

    // MARK: Expo

    /// The Expo push message for the Expo push token `to` (`nil` in a preview): without title,
    /// body, sound and badge, and with `_contentAvailable`, for a background update.
    public func expo(to: String?) -> ExpoMessage {
        ExpoMessage(
            to: to, title: isBackground ? nil : title, subtitle: subtitle, body: isBackground ? nil : body,
            data: data.dictionary, sound: sound, badge: badge, priority: priority == .high ? .high : .normal,
            ttl: ttlSeconds, collapseId: collapseId, categoryId: category, channelId: channelId,
            interruptionLevel: interruptionLevel?.rawValue, richContent: imageURL.map(ExpoMessage.RichContent.init),
            mutableContent: imageURL == nil ? nil : true, contentAvailable: isBackground ? true : nil)
    }

    // MARK: Size

    /// One provider's size limit, and what this push counts against it.
    public struct SizeCheck: Sendable, Equatable {
        public var provider: PushProvider
        public var bytes: Int
        public var limit: Int
        public var fits: Bool { bytes <= limit }
    }

    /// What each provider counts of this push (without a device token) against its limit:
    /// the APNs body, FCM's data with title and body, Expo's message.
    public var sizes: [SizeCheck] {
        [
            SizeCheck(provider: .apns, bytes: APNsRequest.encode(self).count, limit: APNsRequest.maxPayloadBytes),
            SizeCheck(provider: .fcm, bytes: FCMSendRequest.payloadBytes(self), limit: FCMSendRequest.maxPayloadBytes),
            SizeCheck(
                provider: .expo, bytes: ExpoRequest.messageBytes(expo(to: nil)), limit: ExpoRequest.maxMessageBytes),
        ]
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
