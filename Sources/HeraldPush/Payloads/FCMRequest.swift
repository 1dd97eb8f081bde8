import FoundationEssentials
import HeraldModel

/// The JSON body of an FCM HTTP v1 `messages:send` request.
public struct FCMRequest: Codable, Sendable, Equatable {
    public var message: FCMMessage

    public init(message: FCMMessage) { self.message = message }
}

/// One FCM v1 message: the banner, the push data, Android delivery options and the APNs
/// overrides for iOS devices reached through FCM.
public struct FCMMessage: Codable, Sendable, Equatable {
    /// The banner both platforms show.
    public struct Notification: Codable, Sendable, Equatable {
        public var title: String
        public var body: String
        /// An `https` image shown with the banner.
        public var image: String?

        public init(title: String, body: String, image: String? = nil) {
            self.title = title
            self.body = body
            self.image = image
        }
    }

    /// `fcm_options` of the message, and of its APNs override.
    public struct Options: Codable, Sendable, Equatable {
        public var analyticsLabel: String?
        /// The image an iOS device reached through FCM shows (the override's `fcm_options`).
        public var image: String?

        public init(analyticsLabel: String? = nil, image: String? = nil) {
            self.analyticsLabel = analyticsLabel
            self.image = image
        }

        enum CodingKeys: String, CodingKey {
            case image
            case analyticsLabel = "analytics_label"
        }
    }

    /// `android`: delivery priority, time to live, collapsing and sound.
    public struct Android: Codable, Sendable, Equatable {
        public enum Priority: String, Codable, Sendable {
            case high = "HIGH"
            case normal = "NORMAL"
        }

        /// `android.notification`; left out when it would be empty, and of a data-only message.
        public struct AndroidNotification: Codable, Sendable, Equatable {
            /// A sound resource name, or `default`.
            public var sound: String?
            /// The category whose actions the app shows (the activity's intent filter).
            public var clickAction: String?
            public var channelId: String?

            public init(sound: String?, clickAction: String? = nil, channelId: String? = nil) {
                self.sound = sound
                self.clickAction = clickAction
                self.channelId = channelId
            }

            enum CodingKeys: String, CodingKey {
                case sound
                case clickAction = "click_action"
                case channelId = "channel_id"
            }
        }

        public var priority: Priority
        /// A protobuf duration such as `"3600s"`.
        public var ttl: String?
        public var collapseKey: String?
        public var notification: AndroidNotification?

        public init(
            priority: Priority, ttl: String? = nil, collapseKey: String? = nil,
            notification: AndroidNotification? = nil
        ) {
            self.priority = priority
            self.ttl = ttl
            self.collapseKey = collapseKey
            self.notification = notification
        }

        enum CodingKeys: String, CodingKey {
            case priority, ttl, notification
            case collapseKey = "collapse_key"
        }
    }

    /// `apns`: the APNs headers and the same `aps` a direct APNs push carries.
    public struct APNs: Codable, Sendable, Equatable {
        public struct Payload: Codable, Sendable, Equatable {
            public var aps: APNsPayload.APS
            public init(aps: APNsPayload.APS) { self.aps = aps }
        }

        public var headers: [String: String]
        public var payload: Payload
        public var fcmOptions: Options?

        public init(headers: [String: String], payload: Payload, fcmOptions: Options? = nil) {
            self.headers = headers
            self.payload = payload
            self.fcmOptions = fcmOptions
        }

        enum CodingKeys: String, CodingKey {
            case headers, payload
            case fcmOptions = "fcm_options"
        }
    }

    /// The device registration token; left out of a preview.
    public var token: String?
    /// The banner; absent from a data-only message (a background update).
    public var notification: Notification?
    /// The push data (``PushData``).
    public var data: [String: String]
    public var android: Android
    public var apns: APNs
    public var fcmOptions: Options?

    public init(
        token: String?, notification: Notification?, data: [String: String], android: Android, apns: APNs,
        fcmOptions: Options? = nil
    ) {
        self.token = token
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
        self.fcmOptions = fcmOptions
    }

    enum CodingKeys: String, CodingKey {
        case token, notification, data, android, apns
        case fcmOptions = "fcm_options"
    }
}
