import Foundation
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

        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// `android`: delivery priority, time to live, collapsing and sound.
    public struct Android: Codable, Sendable, Equatable {
        public enum Priority: String, Codable, Sendable {
            case high = "HIGH"
            case normal = "NORMAL"
        }

        /// `android.notification`; left out of a silent push.
        public struct AndroidNotification: Codable, Sendable, Equatable {
            /// A sound resource name, or `default`.
            public var sound: String?
            public init(sound: String?) { self.sound = sound }
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

        public init(headers: [String: String], payload: Payload) {
            self.headers = headers
            self.payload = payload
        }
    }

    /// The device registration token; left out of a preview.
    public var token: String?
    public var notification: Notification
    /// The push data (``PushData``).
    public var data: [String: String]
    public var android: Android
    public var apns: APNs

    public init(
        token: String?, notification: Notification, data: [String: String], android: Android, apns: APNs
    ) {
        self.token = token
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
    }
}
