import Foundation
import HeraldModel
import HeraldSandbox
import HeraldServer
import HeraldTestSupport
import Testing

/// Several apps on one Herald (issue 15, point 3), over real sockets: each app's devices get
/// their pushes through that app's credentials, and one app's broken credentials fail its own
/// deliveries only.
@Suite("Several apps on one Herald", .serialized)
struct SeveralAppsTests {
    /// The three look-alikes on one TLS port with key material of their own: one app's providers.
    struct Gateway {
        let directory: TemporaryDirectory
        let credentials: SandboxCredentials
        /// The app's bundle id: its APNs topic.
        let bundleID: String
        let apns: APNsSandbox
        let fcm: FCMSandbox
        let expo: ExpoSandbox
        let server: HTTP2Server

        static func start(bundleID: String) throws -> Gateway {
            let directory = try TemporaryDirectory("herald-app")
            let credentials = try SandboxCredentials.loadOrCreate(in: directory.path)
            let apns = APNsSandbox(
                publicKey: try credentials.key.publicKey(), keyID: credentials.keyID, teamID: credentials.teamID,
                bundleID: bundleID)
            let fcm = try FCMSandbox(credentials: credentials)
            let expo = ExpoSandbox(accessToken: credentials.expoAccessToken)
            let server = try HTTP2Server.start(
                configuration: HTTP2ServerConfiguration(tls: credentials.tls),
                answering: SandboxRouter(apns.routes + fcm.routes + expo.routes).answer)
            try credentials.fcm.write(tokenURI: "https://127.0.0.1:\(server.port)/token")
            return Gateway(
                directory: directory, credentials: credentials, bundleID: bundleID, apns: apns, fcm: fcm, expo: expo,
                server: server)
        }

        var url: String { "https://127.0.0.1:\(server.port)" }

        /// This gateway's credentials as an app's push settings, sending to `target` (this gateway
        /// unless given another: then every send is refused there, as credentials of another app).
        func app(_ id: String, sendingTo target: Gateway? = nil) -> AppPushSettings {
            let target = target ?? self
            var expo = ExpoSettings()
            expo.baseURL = target.url
            expo.accessToken = credentials.expoAccessToken
            expo.caFile = target.credentials.tls.certificatePath
            return AppPushSettings(
                id: id,
                apns: APNsSettings(
                    keyFile: credentials.keyPath, keyID: credentials.keyID, teamID: credentials.teamID,
                    topic: bundleID, baseURL: target.url, caFile: target.credentials.tls.certificatePath),
                fcm: FCMSettings(
                    serviceAccountFile: credentials.fcm.path, baseURL: target.url,
                    caFile: target.credentials.tls.certificatePath),
                expo: expo)
        }

        func stop() async {
            await server.stop()
            directory.remove()
        }
    }

    /// Registers one device of each provider for `user` in `app` (nil: no appId sent).
    static func register(
        _ user: String, app: String?, on server: TestServer
    ) async throws -> (apns: String, fcm: String, expo: String) {
        let tokens = (
            apns: PushFixture.deviceToken(), fcm: PushFixture.registrationToken(),
            expo: "ExponentPushToken[\(UUID().uuidString)]"
        )
        for (token, provider, platform) in [
            (tokens.apns, PushProvider.apns, DevicePlatform.ios), (tokens.fcm, .fcm, .android),
            (tokens.expo, .expo, .android),
        ] {
            let registration = DeviceRegistration(token: token, provider: provider, platform: platform, appId: app)
            let response = try await server.send(
                "POST", "/v1/me/devices", body: registration, token: try server.token(user))
            try #require(response.status == 200, "\(response.text)")
            #expect((try response.json() as? [String: Any])?["appId"] as? String == app ?? "default")
        }
        return tokens
    }

    @Test("each app's devices are pushed with its own credentials; an app with broken ones fails alone")
    func routedPerApp() async throws {
        let main = try Gateway.start(bundleID: "com.example.main")
        let shop = try Gateway.start(bundleID: "com.example.shop")
        let broken = try Gateway.start(bundleID: "com.example.shop")
        let server = try await TestServer.start(configure: { configuration in
            let defaults = main.app("default")
            configuration.apns = defaults.apns
            configuration.fcm = defaults.fcm
            configuration.expo = defaults.expo ?? ExpoSettings()
            // "broken" signs with its own key and account but sends to the shop's providers,
            // which know neither: APNs refuses its provider token, Google its assertion, Expo its
            // access token.
            configuration.apps = [shop.app("shop"), broken.app("broken", sendingTo: shop)]
            configuration.expo.receiptDelay = 3_600
            configuration.pushWorker.isEnabled = true
            configuration.pushWorker.retryBase = 0.01
            configuration.pushWorker.retryCap = 0.01
            configuration.pushWorker.maxAttempts = 2
        })
        let key = try await server.apiKey()
        let ana = try await Self.register("ana", app: nil, on: server)
        let ben = try await Self.register("ben", app: "shop", on: server)
        let cy = try await Self.register("cy", app: "broken", on: server)
        var statuses: [String: [String]] = [:]
        for user in ["ana", "ben", "cy"] {
            let id = try #require(
                try await server.publish(
                    to: [user], title: "Hello \(user)", body: "Body", extra: #","push":{"send":true}"#, key: key
                ).first)
            let items = try await PushFixture.settledDeliveries(of: id, on: server, key: key)
            statuses[user] = items.map(\.status).sorted()
        }
        #expect(statuses["ana"] == ["sent", "sent", "sent"], "\(statuses)")
        #expect(statuses["ben"] == ["sent", "sent", "sent"], "\(statuses)")
        #expect(statuses["cy"] == ["failed", "failed", "failed"], "\(statuses)")

        // Each app's pushes reached its own providers, under its own topic, project and token.
        #expect(main.apns.accepted(for: ana.apns).map(\.topic) == ["com.example.main"])
        #expect(shop.apns.accepted(for: ben.apns).map(\.topic) == ["com.example.shop"])
        #expect(main.credentials.keyID != shop.credentials.keyID)
        #expect(main.credentials.expoAccessToken != shop.credentials.expoAccessToken)
        // Each app's service account got its own access token; the broken one's assertion got none.
        #expect(main.fcm.tokenExchanges == 1 && shop.fcm.tokenExchanges == 1)
        #expect(main.fcm.accepted(for: ana.fcm).map(\.name).allSatisfy { $0.contains(main.fcm.projectID) })
        #expect(shop.fcm.accepted(for: ben.fcm).map(\.name).allSatisfy { $0.contains(shop.fcm.projectID) })
        #expect(main.fcm.accepted(for: ana.fcm).count == 1 && shop.fcm.accepted(for: ben.fcm).count == 1)
        #expect(main.expo.accepted(for: ana.expo).count == 1 && shop.expo.accepted(for: ben.expo).count == 1)
        // Nothing crossed over, and the broken app's pushes were accepted nowhere.
        #expect(shop.apns.accepted(for: ana.apns).isEmpty && main.apns.accepted(for: ben.apns).isEmpty)
        #expect(shop.expo.accepted(for: cy.expo).isEmpty && shop.apns.accepted(for: cy.apns).isEmpty)
        #expect(shop.fcm.accepted(for: cy.fcm).isEmpty && broken.apns.accepted.isEmpty)

        // A Live Activity token names its app too: a start goes through that app's APNs key, on
        // its topic's liveactivity push type.
        let startToken = PushFixture.deviceToken()
        let registration = LiveActivityTokenRegistration(
            token: startToken, attributesType: "DeliveryAttributes", kind: .pushToStart, appId: "shop")
        let registered = try await server.send(
            "POST", "/v1/me/live-activities", body: registration, token: try server.token("ben"))
        try #require(registered.status == 200, "\(registered.text)")
        #expect(registered.object["appId"] as? String == "shop")
        let started = try await server.send(
            "POST", "/v1/users/ben/live-activities",
            json: #"""
                {"activityId":"ride-1","attributesType":"DeliveryAttributes","attributes":{},"contentState":{},
                 "alert":{"title":"Ride","body":"On its way"}}
                """#, token: key)
        try #require(started.status == 202, "\(started.text)")
        _ = try await becomesTrue { !shop.apns.accepted(for: startToken).isEmpty }
        #expect(shop.apns.accepted(for: startToken).map(\.topic) == ["com.example.shop.push-type.liveactivity"])
        #expect(main.apns.accepted(for: startToken).isEmpty)
        let unknown = LiveActivityTokenRegistration(
            token: PushFixture.deviceToken(), attributesType: "DeliveryAttributes", kind: .pushToStart, appId: "nope")
        let refused = try await server.send(
            "POST", "/v1/me/live-activities", body: unknown, token: try server.token("ben"))
        #expect(refused.status == 400 && refused.errorCode == "unknown_app")

        #expect(server.app.serverErrorCount == 0)
        await server.stop()
        for gateway in [main, shop, broken] { await gateway.stop() }
    }

    @Test("a device naming an app the server does not have is 400 unknown_app; a malformed id is 400")
    func unknownApp() async throws {
        let server = try await TestServer.start(configure: { configuration in
            configuration.apps = [AppPushSettings(id: "shop", expo: ExpoSettings())]
        })
        let token = try server.token("ana")
        var answers: [(Int, String?)] = []
        for app in ["nope", "Shop", "-x", String(repeating: "a", count: 65), "shop", "default"] {
            let registration = DeviceRegistration(
                token: "ExponentPushToken[\(UUID().uuidString)]", provider: .expo, platform: .android, appId: app)
            let response = try await server.send("POST", "/v1/me/devices", body: registration, token: token)
            answers.append((response.status, response.errorCode))
        }
        await server.stop()
        #expect(answers.map(\.0) == [400, 400, 400, 400, 200, 200])
        #expect(answers.map(\.1) == ["unknown_app", "invalid", "invalid", "too_long", nil, nil])
    }
}
