import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Account gate: the Home notification offer")
@MainActor struct HomeOfferMountTests {
    /// The gate and the offer coordinator over one permission world, as the app wires them.
    private func mounted(_ world: PermissionWorld) -> (AccountGateModel, PermissionOfferCoordinator) {
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        let gate = AccountGateModel(dependencies: world.dependencies, shell: .failing, offers: offers)
        return (gate, offers)
    }

    @Test("GATE-08 a ready stage with Home in front and no registered token schedules the ask (1.5 s)")
    func readyOnHomeSchedulesTheAsk() async {
        let world = PermissionWorld(.notDetermined)
        let (gate, offers) = mounted(world)
        gate.tabFocused(.home)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.accountStageChanged(.loading)
        await world.clock.advance(by: .seconds(2))
        #expect(offers.promptModel == nil)

        gate.accountStageChanged(.ready)
        await world.clock.advance(by: .milliseconds(1_499))
        #expect(offers.promptModel == nil)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.promptModel?.title == "Stay in the loop")
    }

    enum Blocker: String, CaseIterable {
        case guest, stageNotReady, needsDetails, otherTab, pushedScreen, tokenRegistered
    }

    @Test(
        "GATE-08 no ask for a guest, a stage not ready, another tab, a pushed screen or a registered token",
        arguments: Blocker.allCases)
    func blockersScheduleNothing(blocker: Blocker) async {
        let world = PermissionWorld(.notDetermined)
        let (gate, offers) = mounted(world)
        gate.tabFocused(.home)
        gate.sessionStarted(userID: blocker == .guest ? nil : "alice", isColdStart: false)
        switch blocker {
        case .guest: gate.accountStageChanged(.ready)
        case .stageNotReady: gate.accountStageChanged(.unknown(.failed))
        case .needsDetails: gate.accountStageChanged(.needsDetails)
        case .otherTab:
            gate.accountStageChanged(.ready)
            gate.tabFocused(.shop)
        case .pushedScreen:
            gate.accountStageChanged(.ready)
            gate.tabFocused(nil)
        case .tokenRegistered:
            gate.pushTokenRegistrationChanged(isRegistered: true)
            gate.accountStageChanged(.ready)
        }
        await world.clock.advance(by: .seconds(10))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 0)
    }

    @Test("GATE-08 not yet offered: once the ask was made this session, coming back to Home asks nothing")
    func onlyOncePerSession() async {
        let world = PermissionWorld(.notDetermined)
        let (gate, offers) = mounted(world)
        gate.tabFocused(.home)
        gate.sessionStarted(userID: "alice", isColdStart: false)
        gate.accountStageChanged(.ready)
        await world.clock.advance(by: .milliseconds(1_500))
        offers.promptModel?.notNowTapped()
        world.storage.values = [:]

        gate.tabFocused(.shop)
        gate.tabFocused(.home)
        await world.clock.advance(by: .seconds(10))
        #expect(offers.promptModel == nil)
    }
}
