import FoundationEssentials
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldPush

/// The provider clients the worker sends through, per app: an ``APNsClient`` per device
/// environment, an ``FCMClient`` and an ``ExpoClient``, each with that app's credentials, over
/// HTTP/2 clients shared between apps and providers whose CA settings agree (one for all, in
/// production). Apps signing with one APNs key share its provider token, as Apple wants one
/// token per key. One app's credentials failing at send time (a revoked key, a refused service
/// account) fails that app's deliveries only.
struct PushSenders: Sendable {
    /// One app's clients.
    private struct AppClients: Sendable {
        var apns: [PushEnvironment: APNsClient] = [:]
        var fcm: FCMClient?
        var expo: ExpoClient?
    }

    /// The HTTP/2 clients the providers send through, each once.
    let httpClients: [HTTP2Client]
    private let apps: [String: AppClients]
    /// Seconds after an Expo ticket before its receipt is due.
    let expoReceiptDelay: TimeInterval
    /// The APNs provider tokens, one per signing key (key id and team) of the configured apps.
    let apnsProviderTokens: [APNsProviderToken]

    /// No provider configured: every row fails with `provider_not_configured`.
    static let none = PushSenders(httpClients: [], apps: [:], expoReceiptDelay: 0, apnsProviderTokens: [])

    private init(
        httpClients: [HTTP2Client], apps: [String: AppClients], expoReceiptDelay: TimeInterval,
        apnsProviderTokens: [APNsProviderToken]
    ) {
        self.httpClients = httpClients
        self.apps = apps
        self.expoReceiptDelay = expoReceiptDelay
        self.apnsProviderTokens = apnsProviderTokens
    }

    /// Clients for the providers each of `apps` configures, whose HTTP/2 clients report to
    /// `logger`; throws ``PushSettingsError`` when an APNs key file cannot be read or is not a
    /// P-256 key, or an FCM service account cannot be read or used.
    ///
    /// Without an APNs base URL, production devices go to APNs production and development
    /// devices to its development gateway; with one, every device goes there.
    init(
        apps appSettings: [AppPushSettings], expoReceiptDelay: TimeInterval, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) throws {
        var shared: [String?: HTTP2Client] = [:]
        func http(caFile: String?) -> HTTP2Client {
            if let client = shared[caFile] { return client }
            let client = HTTP2Client(configuration: HTTP2ClientConfiguration(caFile: caFile, logger: logger))
            shared[caFile] = client
            return client
        }
        // A bad credentials file stops the start (the clients' threads start with their first push).
        // One provider token per signing key, whichever apps sign with it.
        let signingKey = { (settings: APNsSettings) in "\(settings.teamID)/\(settings.keyID)" }
        var tokens: [String: APNsProviderToken] = [:]
        var accounts: [String: FCMServiceAccount] = [:]
        for app in appSettings {
            if let settings = app.apns, tokens[signingKey(settings)] == nil {
                tokens[signingKey(settings)] = try Self.providerToken(settings, now: now)
            }
            if let settings = app.fcm { accounts[app.id] = try Self.serviceAccount(settings) }
        }
        var apps: [String: AppClients] = [:]
        for app in appSettings {
            var clients = AppClients()
            if let settings = app.apns, let token = tokens[signingKey(settings)] {
                let client = http(caFile: settings.caFile)
                for environment in PushEnvironment.allCases {
                    let url =
                        settings.baseURL
                        ?? (environment == .production
                            ? APNsConfiguration.productionURL : APNsConfiguration.developmentURL)
                    clients.apns[environment] = APNsClient(
                        configuration: APNsConfiguration(baseURL: url, topic: settings.topic), providerToken: token,
                        exchange: { try await client.send($0) })
                }
            }
            if let settings = app.fcm, let account = accounts[app.id] {
                let client = http(caFile: settings.caFile)
                let exchange: HTTP2Exchange = { try await client.send($0) }
                clients.fcm = FCMClient(
                    configuration: FCMConfiguration(
                        baseURL: settings.baseURL ?? FCMConfiguration.productionURL, projectID: account.projectID),
                    accessTokens: FCMAccessTokenCache(account: account, clock: now, send: exchange), exchange: exchange)
            }
            if let settings = app.expo {
                let client = http(caFile: settings.caFile)
                clients.expo = ExpoClient(
                    configuration: ExpoConfiguration(baseURL: settings.baseURL, accessToken: settings.accessToken),
                    exchange: { try await client.send($0) })
            }
            apps[app.id] = clients
        }
        self.init(
            httpClients: Array(shared.values), apps: apps, expoReceiptDelay: expoReceiptDelay,
            apnsProviderTokens: tokens.keys.sorted().compactMap { tokens[$0] })
    }

    /// The client for `provider` in `environment` of the app `app`, when it is configured.
    func client(app: String, provider: PushProvider, environment: PushEnvironment) -> (any PushClient)? {
        switch provider {
        case .apns: apps[app]?.apns[environment]
        case .fcm: apps[app]?.fcm
        case .expo: nil  // sent in batches: see `expo(app:)`
        }
    }

    /// The Expo client of the app `app`, when it has one.
    func expo(app: String) -> ExpoClient? {
        apps[app]?.expo
    }

    /// Whether any app sends through Expo (then receipts are polled).
    var hasExpo: Bool {
        apps.values.contains { $0.expo != nil }
    }

    /// Fails the requests still in flight and frees every HTTP/2 client.
    func shutdown() async {
        for client in httpClients { await client.shutdown() }
    }

    private static func providerToken(_ settings: APNsSettings, now: @escaping @Sendable () -> Date) throws
        -> APNsProviderToken
    {
        let pem: String
        do {
            pem = try String(contentsOfFile: settings.keyFile, encoding: .utf8)
        } catch {
            throw PushSettingsError("cannot read the APNs key file \(settings.keyFile): \(FileReadError.reason(error))")
        }
        do {
            let key = try SigningKey(privateKeyPEM: pem)
            return try APNsProviderToken(key: key, keyID: settings.keyID, teamID: settings.teamID, clock: now)
        } catch {
            throw PushSettingsError("the APNs key file \(settings.keyFile) must hold a private P-256 (.p8) key")
        }
    }

    private static func serviceAccount(_ settings: FCMSettings) throws -> FCMServiceAccount {
        let json: Data
        do {
            json = try Data(contentsOf: URL(fileURLWithPath: settings.serviceAccountFile))
        } catch {
            throw PushSettingsError(
                "cannot read the FCM service account file \(settings.serviceAccountFile): \(FileReadError.reason(error))"
            )
        }
        do {
            return try FCMServiceAccount(json: Array(json))
        } catch {
            throw PushSettingsError(
                "the FCM service account file \(settings.serviceAccountFile) is not a usable service-account JSON key: \(error)"
            )
        }
    }
}

/// Push settings that cannot work (unreadable key, partial APNs settings).
public struct PushSettingsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Array {
    /// The elements in groups of equal `key`, the groups in the order their keys first appear and
    /// each in its elements' order: the worker's Expo batches and the poller's receipts, per app.
    func grouped<Key: Hashable>(by key: (Element) -> Key) -> [[Element]] {
        var position: [Key: Int] = [:]
        var groups: [[Element]] = []
        for element in self {
            let value = key(element)
            if let index = position[value] {
                groups[index].append(element)
            } else {
                position[value] = groups.count
                groups.append([element])
            }
        }
        return groups
    }
}
