import FoundationEssentials
import HeraldPush

extension Option {
    /// The `serve` flags of APNs, FCM and the delivery worker.
    static let push: [Option] = [
        .value("apns-key-file", "PATH", ".p8 signing key {twin}"),
        .value("apns-key-id", "ID", "Key id of the .p8 key {twin}"),
        .value("apns-team-id", "ID", "Apple developer team id {twin}"),
        .value("apns-topic", "BUNDLE_ID", "The app's bundle id, sent as apns-topic {twin}"),
        .value(
            "apns-base-url", "URL",
            """
            One gateway for every device {twin} (default:
            production devices https://api.push.apple.com, development
            devices https://api.sandbox.push.apple.com)
            """),
        .value(
            "apns-ca-file", "PATH",
            """
            PEM certificates to trust instead of the system's, e.g. the
            sandbox's {twin}
            """),
        .value(
            "fcm-service-account", "PATH",
            """
            Service-account JSON key of the Firebase project; turns FCM on
            {twin}
            """),
        .value(
            "fcm-base-url", "URL",
            """
            FCM endpoint {twin} (default
            https://fcm.googleapis.com)
            """),
        .value(
            "fcm-ca-file", "PATH",
            """
            PEM certificates to trust for FCM and the account's token_uri
            {twin}
            """),
        .value(
            "apps-file", "PATH",
            """
            JSON file of more apps, each with its own APNs, FCM and Expo
            credentials; a device names its app with appId {twin}
            (default: none, only the default app of the flags above)
            """),
        .value("push-concurrency", "N", "Sends in flight at once {twin} (default 256)"),
        .value("push-batch-size", "N", "Outbox rows claimed per batch {twin} (default 1024)"),
        .value(
            "push-lease", "SECONDS",
            """
            How long a claimed row waits before another claim
            {twin} (default 60)
            """),
        .value(
            "push-retry-base", "SECONDS",
            """
            First retry's backoff ceiling, doubling per attempt
            {twin} (default 1)
            """),
        .value("push-retry-cap", "SECONDS", "Longest retry wait {twin} (default 1800)"),
        .value(
            "push-max-attempts", "N",
            """
            Attempts before a delivery fails {twin}
            (default 8)
            """),
    ]

    /// The `serve` flags of the Expo push service.
    static let expo: [Option] = [
        .value(
            "expo-base-url", "URL",
            """
            The Expo push service {twin}
            (default https://exp.host)
            """),
        .value(
            "expo-access-token", "TOKEN",
            """
            Access token of a project with enhanced push security, sent
            as Authorization: Bearer {twin}
            """),
        .value(
            "expo-ca-file", "PATH",
            """
            PEM certificates to trust instead of the system's, e.g. the
            sandbox's {twin}
            """),
        .value(
            "expo-receipt-delay", "SECONDS",
            """
            Wait after a ticket before fetching its receipt
            {twin} (default 900)
            """),
    ]
}

extension Arguments {
    /// The Expo settings: on by default against `https://exp.host`, changed by what is given.
    func expoSettings() throws -> ExpoSettings {
        var settings = ExpoSettings()
        if let url = value("expo-base-url") {
            guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                throw CLIError("--expo-base-url must be an http:// or https:// URL, not \"\(url)\"")
            }
            settings.baseURL = url
        }
        settings.accessToken = value("expo-access-token")
        settings.caFile = value("expo-ca-file")
        settings.receiptDelay = try seconds("expo-receipt-delay", default: settings.receiptDelay, range: 0...86_400)
        return settings
    }

    /// The APNs settings: `nil` when none is given, a usage error when only some of key file,
    /// key id, team id and topic are.
    func apnsSettings() throws -> APNsSettings? {
        let required = ["apns-key-file", "apns-key-id", "apns-team-id", "apns-topic"]
        let given = required.compactMap { name in value(name).flatMap { $0.isEmpty ? nil : $0 } }
        if given.isEmpty {
            let optional = ["apns-base-url", "apns-ca-file"].filter { value($0) != nil }
            guard optional.isEmpty else {
                throw CLIError("--\(optional[0]) needs the APNs key file, key id, team id and topic")
            }
            return nil
        }
        guard given.count == required.count else {
            let missing = required.filter { value($0)?.isEmpty ?? true }
            throw CLIError(
                "APNs needs --apns-key-file, --apns-key-id, --apns-team-id and --apns-topic together; missing "
                    + missing.map { "--\($0)" }.joined(separator: ", "))
        }
        return APNsSettings(
            keyFile: given[0], keyID: given[1], teamID: given[2], topic: given[3], baseURL: value("apns-base-url"),
            caFile: value("apns-ca-file"))
    }

    /// The FCM settings: `nil` when none is given, a usage error when the base URL or CA file
    /// comes without the service account.
    func fcmSettings() throws -> FCMSettings? {
        guard let file = value("fcm-service-account"), !file.isEmpty else {
            if let optional = ["fcm-base-url", "fcm-ca-file"].first(where: { value($0) != nil }) {
                throw CLIError("--\(optional) needs --fcm-service-account")
            }
            return nil
        }
        return FCMSettings(serviceAccountFile: file, baseURL: value("fcm-base-url"), caFile: value("fcm-ca-file"))
    }

    /// The delivery worker's settings, defaults for what is not given.
    func pushWorkerSettings() throws -> PushWorkerSettings {
        var settings = PushWorkerSettings()
        settings.concurrency = try int("push-concurrency", default: settings.concurrency, range: 1...10_000)
        settings.batchSize = try int("push-batch-size", default: settings.batchSize, range: 1...10_000)
        settings.lease = try seconds("push-lease", default: settings.lease, range: 1...86_400)
        settings.retryBase = try seconds("push-retry-base", default: settings.retryBase, range: 0.001...3_600)
        settings.retryCap = try seconds("push-retry-cap", default: settings.retryCap, range: 0.001...86_400)
        settings.maxAttempts = try int("push-max-attempts", default: settings.maxAttempts, range: 1...100)
        guard settings.retryCap >= settings.retryBase else {
            throw CLIError("--push-retry-cap must be at least --push-retry-base")
        }
        return settings
    }

    /// A number of seconds (fractions allowed) in `range`.
    func seconds(_ name: String, default defaultValue: Double, range: ClosedRange<Double>) throws -> Double {
        guard let raw = value(name) else { return defaultValue }
        guard let number = Double(raw), range.contains(number) else {
            throw CLIError("--\(name) must be a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
