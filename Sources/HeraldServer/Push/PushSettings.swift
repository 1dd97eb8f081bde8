import FoundationEssentials

/// How the server reaches APNs: token auth from a .p8 key, and where to send.
///
/// Configured only as a whole (key file, key id, team id and topic); `herald serve` refuses a
/// partial set at start-up.
public struct APNsSettings: Sendable, Equatable {
    /// Path of the .p8 (PKCS#8 PEM, P-256) signing key.
    public var keyFile: String
    public var keyID: String
    public var teamID: String
    /// The app's bundle id, sent as `apns-topic`.
    public var topic: String
    /// One gateway for every device. `nil`: production devices go to `api.push.apple.com`,
    /// development devices to `api.sandbox.push.apple.com`.
    public var baseURL: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (the sandbox's).
    public var caFile: String?

    public init(
        keyFile: String, keyID: String, teamID: String, topic: String, baseURL: String? = nil, caFile: String? = nil
    ) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = baseURL
        self.caFile = caFile
    }
}

/// How the server reaches FCM HTTP v1: a service-account JSON file (its project, key and token
/// endpoint), and where to send.
public struct FCMSettings: Sendable, Equatable {
    /// Path of the service-account JSON key file, as the Firebase console issues it.
    public var serviceAccountFile: String
    /// The FCM endpoint. `nil`: `https://fcm.googleapis.com`.
    public var baseURL: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (the sandbox's),
    /// for the FCM endpoint and the service account's token endpoint alike.
    public var caFile: String?

    public init(serviceAccountFile: String, baseURL: String? = nil, caFile: String? = nil) {
        self.serviceAccountFile = serviceAccountFile
        self.baseURL = baseURL
        self.caFile = caFile
    }
}

/// The push credentials of one app: the default app's come from `herald serve`'s push flags,
/// the others' from the apps file (`--apps-file`). A device names its app when it registers
/// (`appId`); its pushes go out with that app's credentials.
public struct AppPushSettings: Sendable, Equatable {
    /// ``HeraldModel/DeviceRegistration/defaultAppID`` for the default app.
    public var id: String
    public var apns: APNsSettings?
    public var fcm: FCMSettings?
    /// Expo's service for this app; nil: its Expo devices fail with `provider_not_configured`.
    /// Only `baseURL`, `accessToken` and `caFile` are the app's: receipts are timed for all.
    public var expo: ExpoSettings?

    public init(id: String, apns: APNsSettings? = nil, fcm: FCMSettings? = nil, expo: ExpoSettings? = nil) {
        self.id = id
        self.apns = apns
        self.fcm = fcm
        self.expo = expo
    }
}

/// How the delivery worker claims and retries outbox rows.
public struct PushWorkerSettings: Sendable, Equatable {
    /// Whether the worker runs at all. No flag: `herald serve` always runs it; tests that read
    /// rows as the publish wrote them turn it off.
    public var isEnabled = true
    /// Sends in flight at once (measured best of 64 to 512 in `scripts/bench-push.sh`).
    public var concurrency: Int = 256
    /// Rows claimed per batch; the next batch is claimed while one is sent.
    public var batchSize: Int = 1_024
    /// How long a claimed row stays with this worker before another may claim it again.
    public var lease: TimeInterval = 60
    /// Backoff ceiling of the first retry, in seconds; doubles per attempt.
    public var retryBase: TimeInterval = 1
    /// Longest wait before a retry, in seconds.
    public var retryCap: TimeInterval = 30 * 60
    /// Attempts in all, the first included.
    public var maxAttempts: Int = 8
    /// Longest sleep between looks at the outbox (retries and deferred rows come due on their own).
    public var wakeInterval: Duration = .seconds(1)

    public init() {}
}

/// How the server reaches the Expo push service. Expo needs no key material, so it is on by
/// default, against `https://exp.host` without an access token.
public struct ExpoSettings: Sendable, Equatable {
    /// The service, `https://exp.host` by default (the sandbox's URL in development).
    public var baseURL: String = "https://exp.host"
    /// The access token of a project with enhanced push security, sent as `Authorization: Bearer`.
    public var accessToken: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (the sandbox's).
    public var caFile: String?
    /// Seconds after a ticket before its receipt is fetched (Expo advises about 15 minutes).
    public var receiptDelay: TimeInterval = 900
    /// Longest sleep of the receipt poller between looks for due receipts.
    public var receiptPollInterval: Duration = .seconds(1)

    public init() {}
}
