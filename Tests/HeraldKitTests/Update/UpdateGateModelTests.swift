import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Update prompt")
@MainActor struct UpdateGateModelTests {
    private static let storeURL = "https://apps.apple.com/app/id123"

    private static func policy(minimum: String?, sideloadPrompt: Bool? = nil) -> PlatformUpdatePolicy {
        PlatformUpdatePolicy(minimumVersion: minimum, storeURL: storeURL, sideloadPrompt: sideloadPrompt)
    }

    /// The gate of an install described by `world` after app-config with `document` loaded.
    private func loaded(_ world: ShellWorld, _ document: AppConfigDocument) throws -> UpdateGateModel {
        let gate = UpdateGateModel(dependencies: world.dependencies)
        gate.appConfigLoaded(try world.appConfig(document))
        return gate
    }

    @Test("UPDATE-01 hidden before app-config loads (offline or loading)")
    func hiddenBeforeLoad() {
        let world = ShellWorld(appVersion: "1.0.0")
        let gate = UpdateGateModel(dependencies: world.dependencies)
        gate.appBecameActive()
        #expect(gate.prompt == nil)
    }

    @Test("UPDATE-01 hidden without a policy, without installer info, or without a policy for the platform")
    func hiddenWithoutPolicy() throws {
        let outdated = AppConfigDocument(update: UpdatePolicy(ios: Self.policy(minimum: "1.7.0")))
        #expect(try loaded(ShellWorld(appVersion: "1.0.0"), AppConfigDocument()).prompt == nil)
        #expect(try loaded(ShellWorld(appVersion: "1.0.0", installSource: nil), outdated).prompt == nil)
        #expect(try loaded(ShellWorld(appVersion: "1.0.0", installSource: .unknown), outdated).prompt == nil)
        #expect(
            try loaded(ShellWorld(platform: .android, appVersion: "1.0.0", installSource: .playStore), outdated).prompt
                == nil)
        // The same install with the policy does prompt, so the cases above are the policy's doing.
        #expect(try loaded(ShellWorld(appVersion: "1.0.0"), outdated).prompt != nil)
    }

    @Test(
        "UPDATE-02 the prompt shows when the installed version is below the minimum, by semantic version",
        arguments: [
            ("1.6.9", "1.7.0", true), ("1.7.0", "1.7.0", false), ("1.7.1", "1.7.0", false),
            ("1.9.9", "1.10.0", true), ("1.10.0", "1.9.9", false), ("1.7.0-beta.1", "1.7.0", true),
            ("2.0.0", "1.7.0", false),
        ])
    func belowMinimum(installed: String, minimum: String, prompts: Bool) throws {
        let world = ShellWorld(appVersion: installed)
        let gate = try loaded(world, AppConfigDocument(update: UpdatePolicy(ios: Self.policy(minimum: minimum))))
        #expect((gate.prompt?.kind == .version) == prompts)
    }

    @Test("UPDATE-02 an installed version that is not a semantic version is refused, as the server refuses it")
    func unreadableVersionRefused() {
        for version in ["1.7", ""] {
            let world = ShellWorld(appVersion: version)
            #expect(throws: Never.self, "\(version)") { try world.appConfig(AppConfigDocument()) }
        }
        for version in ["v1.7.0", "1.07.0", "latest"] {
            let world = ShellWorld(appVersion: version)
            #expect(throws: HeraldAPIError.self, "\(version)") { try world.appConfig(AppConfigDocument()) }
        }
    }

    @Test("UPDATE-02 the version prompt's copy, and Update Now opens the store listing")
    func versionPrompt() throws {
        let world = ShellWorld(appVersion: "1.6.0")
        let gate = try loaded(world, AppConfigDocument(update: UpdatePolicy(ios: Self.policy(minimum: "1.7.0"))))
        let prompt = try #require(gate.prompt)
        #expect(prompt.title == "Update available")
        #expect(prompt.message.contains("1.6.0") && prompt.message.contains("1.7.0"))
        #expect(prompt.updateNowButton == ButtonState(title: "Update Now"))
        #expect(prompt.laterButton == ButtonState(title: "Later"))
        gate.updateNowTapped()
        #expect(world.navigator.steps == [.openURL(URL(string: Self.storeURL)!)])
        #expect(gate.prompt == nil)
        #expect(world.storage.values.isEmpty)
    }

    @Test("UPDATE-03 a sideloaded Android install gets New version on Play Store, over the version update")
    func sideloadedAndroid() throws {
        let document = AppConfigDocument(
            update: UpdatePolicy(android: Self.policy(minimum: "1.7.0", sideloadPrompt: true)))
        let sideloaded = try loaded(
            ShellWorld(platform: .android, appVersion: "1.0.0", installSource: .sideloaded), document)
        let prompt = try #require(sideloaded.prompt)
        #expect(prompt.kind == .store)
        #expect(prompt.title == "New version on Play Store")

        let fromPlay = try loaded(
            ShellWorld(platform: .android, appVersion: "1.0.0", installSource: .playStore), document)
        #expect(fromPlay.prompt?.kind == .version)
        let upToDate = try loaded(
            ShellWorld(platform: .android, appVersion: "1.8.0", installSource: .sideloaded), document)
        #expect(upToDate.prompt?.kind == .store)

        let promptOff = AppConfigDocument(update: UpdatePolicy(android: Self.policy(minimum: "1.7.0")))
        let quiet = try loaded(
            ShellWorld(platform: .android, appVersion: "1.8.0", installSource: .sideloaded), promptOff)
        #expect(quiet.prompt == nil)
    }

    @Test("UPDATE-04 Later hides the prompt for 7 days (6 d 23:59:59.999 still hidden); never forced")
    func laterForSevenDays() async throws {
        let world = ShellWorld(appVersion: "1.0.0")
        let config = try world.appConfig(AppConfigDocument(update: UpdatePolicy(ios: Self.policy(minimum: "1.7.0"))))
        let gate = UpdateGateModel(dependencies: world.dependencies)
        gate.appConfigLoaded(config)
        #expect(gate.prompt?.isDismissible == true)
        gate.laterTapped()
        #expect(gate.prompt == nil)

        gate.appConfigLoaded(config)
        #expect(gate.prompt == nil)
        await world.clock.advance(by: .seconds(7 * 24 * 3600) - .milliseconds(1))
        gate.appBecameActive()
        #expect(gate.prompt == nil)
        await world.clock.advance(by: .milliseconds(1))
        gate.appBecameActive()
        #expect(gate.prompt?.kind == .version)

        // A later launch reads the dismissal from storage.
        gate.laterTapped()
        let relaunched = UpdateGateModel(dependencies: world.dependencies)
        relaunched.appConfigLoaded(config)
        #expect(relaunched.prompt == nil)
    }

    @Test("UPDATE-04 each kind is dismissed on its own")
    func kindsDismissedApart() throws {
        let world = ShellWorld(platform: .android, appVersion: "1.0.0", installSource: .sideloaded)
        let gate = UpdateGateModel(dependencies: world.dependencies)
        let store = try world.appConfig(
            AppConfigDocument(update: UpdatePolicy(android: Self.policy(minimum: "1.7.0", sideloadPrompt: true))))
        let version = try world.appConfig(
            AppConfigDocument(update: UpdatePolicy(android: Self.policy(minimum: "1.7.0"))))
        gate.appConfigLoaded(store)
        #expect(gate.prompt?.kind == .store)
        gate.laterTapped()
        gate.appConfigLoaded(version)
        #expect(gate.prompt?.kind == .version)
        gate.laterTapped()
        gate.appConfigLoaded(store)
        #expect(gate.prompt == nil)
    }
}
