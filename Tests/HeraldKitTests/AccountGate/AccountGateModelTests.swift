import HeraldKit
import HeraldKitTestSupport
import Testing

@Suite("Account gate: blocking splash, account error, stages")
@MainActor struct AccountGateModelTests {
    /// A gate over the world's clock, router and app services.
    private func gate(_ world: ShellWorld) -> AccountGateModel {
        AccountGateModel(dependencies: world.dependencies, shell: world.shell.client)
    }

    private static let loadFailedMessage = "Something went wrong while loading your account. Please try again."

    /// The account error's message while it shows; `nil` otherwise.
    private func errorMessage(_ gate: AccountGateModel) -> String? {
        if case .accountError(let error) = gate.content { error.message } else { nil }
    }

    @Test("GATE-01 a guest gets the app at once, with no timer and no account call")
    func guestPasses() async {
        let world = ShellWorld()
        let gate = AccountGateModel(dependencies: world.dependencies, shell: .failing)
        gate.sessionStarted(userID: nil, isColdStart: true)
        #expect(gate.content == .app)
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 0)
        await world.clock.advance(by: .seconds(30))
        #expect(gate.content == .app)
        #expect(world.navigator.steps.isEmpty)
    }

    @Test("GATE-02 a signed-in cold start shows the blocking splash until the stage is ready")
    func blockingSplashUntilReady() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        #expect(gate.content == .blockingSplash)
        await world.clock.advance(by: .seconds(3))
        gate.accountStageChanged(.loading)
        #expect(gate.content == .blockingSplash)
        gate.accountStageChanged(.ready)
        #expect(gate.content == .app)
        await world.clock.advance(by: .seconds(30))
        #expect(gate.content == .app)
    }

    @Test("GATE-02 later token refreshes never block: loading or unknown after the gate opened")
    func laterRefreshesNeverBlock() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.accountStageChanged(.ready)
        gate.accountStageChanged(.loading)
        #expect(gate.content == .app)
        await world.clock.advance(by: .seconds(20))
        gate.accountStageChanged(.unknown(.failed))
        await world.clock.advance(by: .seconds(20))
        #expect(gate.content == .app)
    }

    @Test("GATE-02 a sign-in during the run never blocks")
    func signInDoesNotBlock() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: nil, isColdStart: true)
        gate.sessionStarted(userID: "alice", isColdStart: false)
        #expect(gate.content == .app)
        #expect(gate.stage == .loading)
        await world.clock.advance(by: .seconds(20))
        #expect(gate.content == .app)
    }

    @Test(
        "GATE-03 a stage still unknown when the 5 s profile wait passes: Can't load your account (4.999 s still blocks)"
    )
    func profileWaitGivesUp() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        await world.clock.advance(by: .seconds(1))
        gate.accountStageChanged(.unknown(.failed))
        await world.clock.advance(by: .milliseconds(3_999))
        #expect(gate.content == .blockingSplash)
        await world.clock.advance(by: .milliseconds(1))
        #expect(errorMessage(gate) == Self.loadFailedMessage)
        guard case .accountError(let error) = gate.content else { return }
        #expect(error.title == "Can't load your account")
        #expect(error.tryAgainButton == ButtonState(title: "Try again"))
        #expect(error.continueBrowsingButton == ButtonState(title: "Continue browsing"))
    }

    @Test("GATE-03 a stage that turns unknown after the profile wait fails at once")
    func unknownAfterWaitFailsAtOnce() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        await world.clock.advance(by: .seconds(7))
        #expect(gate.content == .blockingSplash)
        gate.accountStageChanged(.unknown(.failed))
        #expect(errorMessage(gate) == Self.loadFailedMessage)
    }

    @Test("GATE-03 the 15 s backstop fires while the stage still loads (14.999 s still blocks)")
    func backstopFires() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        await world.clock.advance(by: .milliseconds(14_999))
        #expect(gate.content == .blockingSplash)
        await world.clock.advance(by: .milliseconds(1))
        #expect(errorMessage(gate) == Self.loadFailedMessage)
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("GATE-03 Continue browsing shows a degraded Home; a stage resolving later still applies")
    func continueBrowsing() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        await world.clock.advance(by: .seconds(15))
        gate.continueBrowsingTapped()
        #expect(gate.content == .app)
        #expect(gate.isDegraded)
        gate.accountStageChanged(.unknown(.failed))
        #expect(gate.content == .app)
        gate.accountStageChanged(.ready)
        #expect(!gate.isDegraded)
        #expect(world.shell.steps.isEmpty)
    }

    @Test("GATE-03 Try again re-checks the account; a ready stage opens the app")
    func tryAgainRechecks() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        await world.clock.advance(by: .seconds(15))
        await gate.tryAgainTapped()
        #expect(world.shell.steps == [.reloadAccount])
        #expect(errorMessage(gate) == Self.loadFailedMessage)
        gate.accountStageChanged(.ready)
        #expect(gate.content == .app)
    }

    @Test("GATE-04 servers unreachable: the body says so, and Try again spins while it retries")
    func serversUnreachable() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.accountStageChanged(.unknown(.serversUnreachable))
        await world.clock.advance(by: .seconds(5))
        guard case .accountError(let error) = gate.content else {
            Issue.record("no account error: \(gate.content)")
            return
        }
        #expect(error.message == "We couldn't reach our servers. Check your connection and try again.")
        #expect(!error.tryAgainButton.isLoading)

        world.shell.holdsAccountReloads = true
        let retry = Task { await gate.tryAgainTapped() }
        await world.clock.settle()
        #expect(world.shell.heldAccountReloadCount == 1)
        guard case .accountError(let retrying) = gate.content else { return }
        #expect(retrying.tryAgainButton == ButtonState(title: "Try again", isLoading: true, isDisabled: true))
        #expect(retrying.message == error.message)
        await gate.tryAgainTapped()
        #expect(world.shell.steps == [.reloadAccount])

        world.shell.finishAccountReload()
        await retry.value
        guard case .accountError(let after) = gate.content else { return }
        #expect(after.tryAgainButton == ButtonState(title: "Try again"))
    }

    @Test("GATE-05 needs-details opens the account details sheet once")
    func needsDetailsOpensSheetOnce() {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.accountStageChanged(.needsDetails)
        #expect(gate.content == .app)
        #expect(world.navigator.openedPaths == ["/account/details"])
        gate.accountStageChanged(.loading)
        gate.accountStageChanged(.needsDetails)
        #expect(world.navigator.openedPaths == ["/account/details"])
        #expect(AppRouteTable.standard.route(for: "/account/details") == .screen(path: "/account/details"))

        // Another session is another sign-up.
        gate.sessionStarted(userID: "bob", isColdStart: false)
        gate.accountStageChanged(.needsDetails)
        #expect(world.navigator.openedPaths == ["/account/details", "/account/details"])
    }

    @Test("GATE-06 a closed account is signed out silently and lands on guest Home")
    func closedAccountSignedOut() async {
        let world = ShellWorld()
        let gate = gate(world)
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.accountStageChanged(.closed)
        await world.clock.settle()
        #expect(world.shell.steps == [.signOut])
        #expect(gate.userID == nil)
        #expect(gate.content == .app)
        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("GATE-07 a pending sign-in action runs once when the stage becomes ready")
    func pendingActionRunsOnce() {
        let world = ShellWorld()
        let gate = gate(world)
        var runs = 0
        gate.sessionStarted(userID: nil, isColdStart: true)
        gate.runWhenSignedIn { runs += 1 }
        #expect(runs == 0)
        gate.sessionStarted(userID: "alice", isColdStart: false)
        gate.accountStageChanged(.loading)
        gate.accountStageChanged(.needsDetails)
        #expect(runs == 0)
        gate.accountStageChanged(.ready)
        #expect(runs == 1)
        gate.accountStageChanged(.loading)
        gate.accountStageChanged(.ready)
        #expect(runs == 1)

        gate.runWhenSignedIn { runs += 10 }
        #expect(runs == 11)
    }

    @Test("GATE-07 an action stored for a signed-in user does not run for the next one after a sign-out")
    func pendingActionEndsWithTheSession() {
        let world = ShellWorld()
        let gate = gate(world)
        var ran: [String] = []
        gate.sessionStarted(userID: "alice", isColdStart: false)
        gate.runWhenSignedIn { ran.append("alice's") }
        gate.sessionStarted(userID: nil, isColdStart: false)
        gate.sessionStarted(userID: "bob", isColdStart: false)
        gate.accountStageChanged(.ready)
        #expect(ran.isEmpty)

        // A closed account ends the session the same way.
        gate.sessionStarted(userID: "dave", isColdStart: false)
        gate.runWhenSignedIn { ran.append("dave's") }
        gate.accountStageChanged(.closed)
        gate.sessionStarted(userID: "carol", isColdStart: false)
        gate.accountStageChanged(.ready)
        #expect(ran.isEmpty)

        // A guest's action still runs at the sign-in that follows.
        gate.sessionStarted(userID: nil, isColdStart: false)
        gate.runWhenSignedIn { ran.append("guest's") }
        gate.sessionStarted(userID: "erin", isColdStart: false)
        gate.accountStageChanged(.ready)
        #expect(ran == ["guest's"])
    }

    @Test("GATE-07 an action stored while a signed-in account still loads waits for ready; the last one stored runs")
    func actionWaitsForReady() async {
        let world = ShellWorld()
        let gate = gate(world)
        var ran: [String] = []
        gate.sessionStarted(userID: "alice", isColdStart: true)
        gate.runWhenSignedIn { ran.append("first") }
        gate.runWhenSignedIn { ran.append("second") }
        gate.accountStageChanged(.loading)
        await world.clock.advance(by: .seconds(15))
        gate.continueBrowsingTapped()
        #expect(ran.isEmpty)
        gate.accountStageChanged(.ready)
        #expect(ran == ["second"])
    }
}
