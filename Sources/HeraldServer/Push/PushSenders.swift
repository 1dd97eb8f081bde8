import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldModel
import HeraldPush

/// The provider clients the worker sends through: an ``APNsClient`` per device environment, an
/// ``FCMClient`` and an ``ExpoClient``, over HTTP/2 clients shared between providers whose CA
/// settings agree (one for all, in production).
struct PushSenders: Sendable {
    /// The HTTP/2 clients the providers send through, each once.
    let httpClients: [HTTP2Client]
    private let apns: [PushEnvironment: APNsClient]
    private let fcm: FCMClient?
    /// The Expo client (on unless `expo` is nil: Expo needs no credentials).
    let expo: ExpoClient?
    /// Seconds after an Expo ticket before its receipt is due.
    let expoReceiptDelay: TimeInterval
    /// The APNs provider token every APNs client signs with, when APNs is configured.
    let apnsProviderToken: APNsProviderToken?

    /// No provider configured: every row fails with `provider_not_configured`.
    static let none = PushSenders(
        httpClients: [], apns: [:], fcm: nil, expo: nil, expoReceiptDelay: 0, apnsProviderToken: nil)

    private init(
        httpClients: [HTTP2Client], apns: [PushEnvironment: APNsClient], fcm: FCMClient?, expo: ExpoClient?,
        expoReceiptDelay: TimeInterval, apnsProviderToken: APNsProviderToken?
    ) {
        self.httpClients = httpClients
        self.apns = apns
        self.fcm = fcm
        self.expo = expo
        self.expoReceiptDelay = expoReceiptDelay
        self.apnsProviderToken = apnsProviderToken
    }

    /// Clients for the configured providers, whose HTTP/2 clients report to `logger`; throws
    /// ``PushSettingsError`` when the APNs key file cannot be read or is not a P-256 key, or the
    /// FCM service account cannot be read or used.
    ///
    /// Without an APNs base URL, production devices go to APNs production and development
    /// devices to its development gateway; with one, every device goes there.
    init(
        apns apnsSettings: APNsSettings?, fcm fcmSettings: FCMSettings?, expo expoSettings: ExpoSettings?,
        logger: Logger, now: @escaping @Sendable () -> Date
    ) throws {
        // Credentials first: a bad file stops the start before any client thread runs.
        let token = try apnsSettings.map { try Self.providerToken($0, now: now) }
        let account = try fcmSettings.map { try Self.serviceAccount($0) }
        var shared: [String?: HTTP2Client] = [:]
        func http(caFile: String?) throws -> HTTP2Client {
            if let client = shared[caFile] { return client }
            let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(caFile: caFile, logger: logger))
            shared[caFile] = client
            return client
        }
        var apns: [PushEnvironment: APNsClient] = [:]
        if let apnsSettings, let token {
            let client = try http(caFile: apnsSettings.caFile)
            for environment in PushEnvironment.allCases {
                let url =
                    apnsSettings.baseURL
                    ?? (environment == .production ? APNsConfiguration.productionURL : APNsConfiguration.developmentURL)
                apns[environment] = APNsClient(
                    configuration: APNsConfiguration(baseURL: url, topic: apnsSettings.topic), providerToken: token,
                    exchange: { try await client.send($0) })
            }
        }
        var fcm: FCMClient?
        if let fcmSettings, let account {
            let client = try http(caFile: fcmSettings.caFile)
            let exchange: HTTP2Exchange = { try await client.send($0) }
            fcm = FCMClient(
                configuration: FCMConfiguration(
                    baseURL: fcmSettings.baseURL ?? FCMConfiguration.productionURL, projectID: account.projectID),
                accessTokens: FCMAccessTokenCache(account: account, clock: now, send: exchange), exchange: exchange)
        }
        let expo = try expoSettings.map { settings in
            let client = try http(caFile: settings.caFile)
            return ExpoClient(
                configuration: ExpoConfiguration(baseURL: settings.baseURL, accessToken: settings.accessToken),
                exchange: { try await client.send($0) })
        }
        self.init(
            httpClients: Array(shared.values), apns: apns, fcm: fcm, expo: expo,
            expoReceiptDelay: expoSettings?.receiptDelay ?? 0, apnsProviderToken: token)
    }

    /// The client for `provider` in `environment`, when it is configured.
    func client(provider: PushProvider, environment: PushEnvironment) -> (any PushClient)? {
        switch provider {
        case .apns: apns[environment]
        case .fcm: fcm
        case .expo: nil  // sent in batches: see `expo`
        }
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
            throw PushSettingsError("cannot read the APNs key file \(settings.keyFile): \(error.localizedDescription)")
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
                "cannot read the FCM service account file \(settings.serviceAccountFile): \(error.localizedDescription)"
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
