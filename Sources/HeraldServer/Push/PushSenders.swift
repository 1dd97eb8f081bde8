import Foundation
import HeraldCrypto
import HeraldModel
import HeraldPush

/// The provider clients the worker sends through: one shared ``HTTP2Client`` and provider
/// token, and an ``APNsClient`` per device environment; an ``ExpoClient`` with its own HTTP/2
/// client. FCM is not wired yet.
struct PushSenders: Sendable {
    let http: HTTP2Client?
    private let apns: [PushEnvironment: APNsClient]
    /// The Expo client, once ``withExpo(_:)`` configured it.
    private(set) var expo: ExpoClient?
    /// Expo's own HTTP/2 client (its CA file is not APNs's).
    private(set) var expoHTTP: HTTP2Client?
    /// Seconds after an Expo ticket before its receipt is due.
    private(set) var expoReceiptDelay: TimeInterval = 900

    /// No provider configured: every row fails with `provider_not_configured`.
    static let none = PushSenders(http: nil, apns: [:])

    private init(http: HTTP2Client?, apns: [PushEnvironment: APNsClient]) {
        self.http = http
        self.apns = apns
    }

    /// Clients for `settings`; throws when the key file cannot be read or is not a P-256 key.
    ///
    /// Without a base URL, production devices go to APNs production and development devices to
    /// its development gateway; with one, every device goes there.
    init(apns settings: APNsSettings?, now: @escaping @Sendable () -> Date) throws {
        guard let settings else {
            self = .none
            return
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: settings.keyFile, encoding: .utf8)
        } catch {
            throw PushSettingsError("cannot read the APNs key file \(settings.keyFile): \(error.localizedDescription)")
        }
        let token: APNsProviderToken
        do {
            let key = try SigningKey(privateKeyPEM: pem)
            token = try APNsProviderToken(key: key, keyID: settings.keyID, teamID: settings.teamID, clock: now)
        } catch {
            throw PushSettingsError("the APNs key file \(settings.keyFile) must hold a private P-256 (.p8) key")
        }
        let http = try HTTP2Client(configuration: HTTP2ClientConfiguration(caFile: settings.caFile))
        var clients: [PushEnvironment: APNsClient] = [:]
        for environment in PushEnvironment.allCases {
            let url =
                settings.baseURL
                ?? (environment == .production ? APNsConfiguration.productionURL : APNsConfiguration.developmentURL)
            clients[environment] = APNsClient(
                configuration: APNsConfiguration(baseURL: url, topic: settings.topic), providerToken: token,
                exchange: { try await http.send($0) })
        }
        self.init(http: http, apns: clients)
    }

    /// These senders with an Expo client for `settings`.
    func withExpo(_ settings: ExpoSettings) throws -> PushSenders {
        var senders = self
        let http = try HTTP2Client(configuration: HTTP2ClientConfiguration(caFile: settings.caFile))
        senders.expoHTTP = http
        senders.expo = ExpoClient(
            configuration: ExpoConfiguration(baseURL: settings.baseURL, accessToken: settings.accessToken),
            exchange: { try await http.send($0) })
        senders.expoReceiptDelay = settings.receiptDelay
        return senders
    }

    /// The client for `provider` in `environment`, when it is configured.
    func apnsClient(provider: PushProvider, environment: PushEnvironment) -> APNsClient? {
        provider == .apns ? apns[environment] : nil
    }
}

/// Push settings that cannot work (unreadable key, partial APNs settings).
public struct PushSettingsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
