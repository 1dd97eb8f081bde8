import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

/// The app shell's models on the live client against a real `herald` process: app-config stored
/// with `PUT /v1/app-config` drives the update prompt and the deep-link allowlist, and the app
/// icon and Profile badges follow the unread count as notifications are created, read and
/// deleted through the API.
@Suite("App shell journey (end to end)", .serialized)
@MainActor struct AppShellJourneyTests {
    /// The shell's dependencies for one install on the live client: the router and storage are
    /// fakes of the device, the clock a test clock.
    @MainActor struct Install {
        let navigator = RecordingNavigator()
        let storage = InMemoryKeyValueStore()
        let clock = TestClock()
        let dependencies: HeraldDependencies

        init(client: HeraldClient, platform: PlatformFacts) {
            var dependencies = HeraldDependencies.failing
            dependencies.api = .live(client, platform: platform)
            dependencies.navigator = navigator.navigator
            dependencies.storage = storage.store
            dependencies.clock = clock.dependency
            dependencies.platform = platform
            self.dependencies = dependencies
        }
    }

    /// Stores `document` with `PUT /v1/app-config`.
    private func putAppConfig(_ document: AppConfigDocument, on server: EndToEndServer) async throws {
        let response = try await server.publisherRequest("PUT", "/v1/app-config", body: document)
        #expect(response.status == 200, "\(response.text)")
    }

    @Test("app-config set through PUT drives the update prompt, by semantic version, and the deep-link allowlist")
    func appConfigDrivesUpdateAndLinks() async throws {
        try await withEndToEndServer { server in
            try await putAppConfig(
                AppConfigDocument(
                    update: UpdatePolicy(
                        ios: PlatformUpdatePolicy(minimumVersion: "2.10.0", storeURL: "https://apps.apple.com/app/id1"),
                        android: PlatformUpdatePolicy(minimumVersion: "2.10.0", sideloadPrompt: true)),
                    deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders/"])),
                on: server)

            let outdated = Install(
                client: server.client(token: nil),
                platform: PlatformFacts(platform: .ios, appVersion: "2.9.9", installSource: .appStore))
            let config = try await outdated.dependencies.api.appConfig()
            let update = UpdateGateModel(dependencies: outdated.dependencies)
            update.appConfigLoaded(config)
            #expect(update.prompt?.kind == .version)
            #expect(update.prompt?.title == "Update available")
            update.updateNowTapped()
            #expect(outdated.navigator.steps == [.openURL(URL(string: "https://apps.apple.com/app/id1")!)])

            // 2.10.0 is above 2.9.9: the server compares versions, not strings.
            let current = Install(
                client: server.client(token: nil),
                platform: PlatformFacts(platform: .ios, appVersion: "2.10.0", installSource: .appStore))
            let currentUpdate = UpdateGateModel(dependencies: current.dependencies)
            currentUpdate.appConfigLoaded(try await current.dependencies.api.appConfig())
            #expect(currentUpdate.prompt == nil)

            // No installer info: no decision, nothing shows.
            let unknownSource = Install(
                client: server.client(token: nil),
                platform: PlatformFacts(platform: .ios, appVersion: "1.0.0", installSource: .unknown))
            let unknownUpdate = UpdateGateModel(dependencies: unknownSource.dependencies)
            unknownUpdate.appConfigLoaded(try await unknownSource.dependencies.api.appConfig())
            #expect(unknownUpdate.prompt == nil)

            // A sideloaded Android install gets the Play Store prompt, even when up to date.
            let sideloaded = Install(
                client: server.client(token: nil),
                platform: PlatformFacts(platform: .android, appVersion: "3.0.0", installSource: .sideloaded))
            let sideloadedUpdate = UpdateGateModel(dependencies: sideloaded.dependencies)
            sideloadedUpdate.appConfigLoaded(try await sideloaded.dependencies.api.appConfig())
            #expect(sideloadedUpdate.prompt?.kind == .store)

            // The allowlist screens links: a rejected cold-start link leaves the app on Home.
            let links = DeepLinkScreener(dependencies: outdated.dependencies)
            links.appConfigLoaded(config)
            #expect(links.coldStart(link: "/promo/summer") == "/")
            links.homeBuilt()
            links.linkOpened("/orders/42")
            links.linkOpened("/promo/summer")
            #expect(outdated.navigator.openedPaths == ["/orders/42"])

            // A new document changes both on the next load.
            try await putAppConfig(
                AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: ["/promo/"])), on: server)
            let reloaded = try await outdated.dependencies.api.appConfig()
            update.appConfigLoaded(reloaded)
            #expect(update.prompt == nil)
            links.appConfigLoaded(reloaded)
            links.linkOpened("/promo/summer")
            links.linkOpened("/orders/43")
            #expect(outdated.navigator.openedPaths == ["/orders/42", "/promo/summer"])
        }
    }

    @Test("FakeAppConfigBackend answers what the real server answers, refusals included")
    func fakeMatchesTheServer() async throws {
        try await withEndToEndServer { server in
            let document = AppConfigDocument(
                update: UpdatePolicy(
                    ios: PlatformUpdatePolicy(minimumVersion: "1.10.0", storeURL: "https://apps.apple.com/app/id1"),
                    android: PlatformUpdatePolicy(minimumVersion: "1.10.0", sideloadPrompt: true)),
                deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders/", "https://shop.example.com/"]))
            try await putAppConfig(document, on: server)
            let installs: [PlatformFacts] = [
                PlatformFacts(platform: .ios, appVersion: "1.9.9", installSource: .appStore),
                PlatformFacts(platform: .ios, appVersion: "1.10.0", installSource: .testFlight),
                PlatformFacts(platform: .ios, appVersion: "1.0.0", installSource: .unknown),
                PlatformFacts(platform: .ios, appVersion: "", installSource: .appStore),
                PlatformFacts(platform: .android, appVersion: "1.0.0", installSource: .playStore),
                PlatformFacts(platform: .android, appVersion: "2.0.0", installSource: .sideloaded),
                PlatformFacts(platform: .android, appVersion: "2.0.0-rc.1", installSource: nil),
            ]
            for install in installs {
                let live = try await HeraldAPI.live(server.client(token: nil), platform: install).appConfig()
                #expect(try FakeAppConfigBackend(document).response(for: install) == live, "\(install)")
            }
            for version in ["v1.0.0", "1.07.0"] {
                let install = PlatformFacts(platform: .ios, appVersion: version, installSource: .appStore)
                let live = await #expect(throws: HeraldAPIError.self) {
                    try await HeraldAPI.live(server.client(token: nil), platform: install).appConfig()
                }
                let fake = #expect(throws: HeraldAPIError.self) {
                    try FakeAppConfigBackend(document).response(for: install)
                }
                #expect(live?.status == 400 && live?.code == "invalid_version")
                #expect(fake?.kind == live?.kind && fake?.status == live?.status && fake?.code == live?.code)
            }
        }
    }

    @Test("the icon and Profile badges follow the unread count as notifications are created, read and deleted")
    func unreadBadgeFollowsTheAPI() async throws {
        try await withEndToEndServer { server in
            let client = try await server.client(user: "carol")
            let install = Install(
                client: client, platform: PlatformFacts(platform: .ios, appVersion: "2.3.0", installSource: .appStore))
            let shell = RecordingAppShell()
            let badge = AppBadgeModel(dependencies: install.dependencies, shell: shell.client)
            let tabs = TabBarModel()
            tabs.sessionChanged(userID: "carol")
            /// The Profile tab's badge, fed the badge model's count as the app feeds it.
            @MainActor func profileBadge() -> String? {
                tabs.unreadCountChanged(badge.unreadCount)
                return tabs.items.first { $0.tab == .profile }?.badge
            }

            badge.sessionChanged(isSignedIn: true)
            try await eventually("the opening counts") { shell.iconBadges == [0] }
            #expect(profileBadge() == nil)

            let first = try await server.publish(to: "carol", type: "order.shipped", data: ["orderId": "1"])
            let second = try await server.publish(to: "carol", type: "promo.flash", title: "Flash sale")
            try await eventually("two unread") { badge.unreadCount == 2 }
            #expect(profileBadge() == "2")

            _ = try await client.markRead(id: first)
            try await eventually("one unread after a read") { badge.unreadCount == 1 }
            try await client.delete(id: second)
            try await eventually("none unread after a delete") { badge.unreadCount == 0 }
            #expect(profileBadge() == nil)
            try await server.publish(to: "carol", type: "order.shipped", data: ["orderId": "3"])
            try await eventually("one unread again") { badge.unreadCount == 1 }
            #expect(try await client.counts().unread == 1)
            #expect(shell.iconBadges.last == 1)
            #expect(Set(shell.iconBadges).isSubset(of: [0, 1, 2]))

            // Signing out clears the icon.
            badge.sessionChanged(isSignedIn: false)
            #expect(shell.iconBadges.last == 0)
            #expect(badge.unreadCount == 0)
        }
    }
}
