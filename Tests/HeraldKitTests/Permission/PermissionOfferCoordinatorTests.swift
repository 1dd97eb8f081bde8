import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Permission offers: Home, order confirmation, developer settings")
@MainActor struct PermissionOfferCoordinatorTests {
    struct PermissionCheckFailed: Error {}

    /// Shell states that must not schedule the Home offer.
    enum Blocker: String, CaseIterable {
        case signedOut, accountNotReady, otherTab, tokenRegistered

        var conditions: HomeOfferConditions {
            var conditions = PermissionCases.onHome
            switch self {
            case .signedOut:
                conditions.isSignedIn = false
                conditions.isAccountReady = false
            case .accountNotReady: conditions.isAccountReady = false
            case .otherTab: conditions.isHomeFocused = false
            case .tokenRegistered: conditions.isPushTokenRegistered = true
            }
            return conditions
        }
    }

    @Test(
        "PERM-14 a signed-in, ready account on Home gets the modal after 1.5 s settled",
        arguments: PermissionCases.undecided)
    func homeOfferAfterSettle(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1499))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 0)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.promptModel?.title == "Stay in the loop")
        #expect(offers.promptModel?.isPresented == true)
    }

    @Test("PERM-14 leaving Home before 1.5 s cancels the offer; coming back starts the wait again")
    func leavingHomeCancels() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        var away = PermissionCases.onHome
        away.isHomeFocused = false

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1400))
        offers.homeConditionsChanged(away)
        await world.clock.advance(by: .seconds(5))
        #expect(offers.promptModel == nil)
        #expect(world.clock.sleeperCount == 0)

        offers.homeConditionsChanged(PermissionCases.onHome)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 1)
        await world.clock.advance(by: .milliseconds(1499))
        #expect(offers.promptModel == nil)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.promptModel != nil)
    }

    @Test(
        "PERM-14 a shell change while the OS permission is still being read drops the Home offer; back on Home the wait starts again",
        arguments: Blocker.allCases)
    func shellChangeDuringTheReadDropsTheOffer(blocker: Blocker) async {
        let world = PermissionWorld(.notDetermined)
        world.system.holdsStateReads = true
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))
        #expect(world.system.heldStateReadCount == 1)

        offers.homeConditionsChanged(blocker.conditions)
        world.system.releaseStateReads()
        await world.clock.settle()
        #expect(offers.promptModel == nil)

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1499))
        #expect(offers.promptModel == nil)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.promptModel != nil)
    }

    @Test("PERM-14 the Home offer comes once per session; a new sign-in is a new session")
    func oncePerSession() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        var away = PermissionCases.onHome
        away.isHomeFocused = false

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))
        offers.promptModel?.notNowTapped()
        #expect(offers.promptModel == nil)
        world.storage.values = [:]  // even without the marker, this session is done

        offers.homeConditionsChanged(away)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .seconds(10))
        #expect(offers.promptModel == nil)

        offers.homeConditionsChanged(Blocker.signedOut.conditions)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))
        #expect(offers.promptModel != nil)
    }

    @Test(
        "PERM-14 no Home offer while signed out, not ready, on another tab, or with a registered push token",
        arguments: Blocker.allCases)
    func homeOfferNeedsTheRightShell(blocker: Blocker) async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(blocker.conditions)
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 0)
        await world.clock.advance(by: .seconds(10))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 0)
    }

    @Test("PERM-14 no Home offer once the prompt was dismissed")
    func noHomeOfferWhenDismissed() async {
        let world = PermissionWorld(.notDetermined)
        world.storage.values[StorageKey.permissionPromptDismissed] = "1"
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .seconds(2))
        #expect(offers.promptModel == nil)
    }

    @Test("PERM-14 no Home offer once the OS decided", arguments: PermissionCases.decided)
    func noHomeOfferWhenDecided(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .seconds(2))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 1)
    }

    @Test("PERM-01 an error while checking the OS permission means no offer")
    func noOfferWhenTheCheckFails() async {
        let world = PermissionWorld(.notDetermined)
        world.system.stateError = PermissionCheckFailed()
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(2))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 2)
    }

    @Test("PERM-06 a dismissed prompt does not come back, on Home or after an order")
    func dismissalKeepsTheOfferAway() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))
        offers.promptModel?.notNowTapped()

        let nextLaunch = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        nextLaunch.homeConditionsChanged(PermissionCases.onHome)
        nextLaunch.orderConfirmed()
        await world.clock.advance(by: .seconds(2))
        #expect(nextLaunch.promptModel == nil)
    }

    @Test("PERM-18 after an order is confirmed the modal appears after 1.2 s", arguments: PermissionCases.undecided)
    func orderConfirmationOffer(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.orderConfirmed()
        await world.clock.advance(by: .milliseconds(1199))
        #expect(offers.promptModel == nil)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.promptModel?.layout == .ask)
    }

    @Test("PERM-18 once per visit of the order confirmation; a new visit may offer again")
    func orderOfferOncePerVisit() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.orderConfirmed()
        offers.orderConfirmed()
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 1)
        await world.clock.advance(by: .milliseconds(1200))
        offers.promptModel?.notNowTapped()
        world.storage.values = [:]  // even without the marker, this visit is done
        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(5))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 1)

        offers.orderConfirmationLeft()
        offers.orderConfirmed()
        await world.clock.advance(by: .milliseconds(1200))
        #expect(offers.promptModel != nil)
    }

    @Test("PERM-18 leaving the confirmation before 1.2 s drops the offer")
    func leavingConfirmationCancels() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(1))
        offers.orderConfirmationLeft()
        await world.clock.advance(by: .seconds(5))
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 0)
    }

    @Test("PERM-18 leaving the confirmation while the OS permission is still being read drops the offer")
    func leavingConfirmationDuringTheReadCancels() async {
        let world = PermissionWorld(.notDetermined)
        world.system.holdsStateReads = true
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.orderConfirmed()
        await world.clock.advance(by: .milliseconds(1200))
        #expect(world.system.heldStateReadCount == 1)

        offers.orderConfirmationLeft()
        world.system.releaseStateReads()
        await world.clock.settle()

        #expect(offers.promptModel == nil)
    }

    @Test(
        "PERM-18 signing out drops a pending order offer, before 1.2 s or while the OS permission is read",
        arguments: [false, true])
    func signingOutDropsTheOrderOffer(duringTheRead: Bool) async {
        let world = PermissionWorld(.notDetermined)
        world.system.holdsStateReads = duringTheRead
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.orderConfirmed()
        await world.clock.advance(by: duringTheRead ? .milliseconds(1200) : .seconds(1))

        offers.homeConditionsChanged(Blocker.signedOut.conditions)
        world.system.releaseStateReads()
        await world.clock.advance(by: .seconds(5))

        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == (duringTheRead ? 1 : 0))
    }

    @Test(
        "PERM-18 nothing after an order when permission is already granted or decided",
        arguments: PermissionCases.decided)
    func noOrderOfferWhenDecided(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(2))
        #expect(offers.promptModel == nil)
    }

    @Test(
        "PERM-19 the developer settings row opens the modal directly, whatever the rules, in every presentation",
        arguments: PermissionPresentation.allCases)
    func developerRowOpensTheModal(presentation: PermissionPresentation) async {
        let world = PermissionWorld(.blocked)
        world.storage.values[StorageKey.permissionPromptDismissed] = "1"
        let offers = PermissionOfferCoordinator(presentation: presentation, dependencies: world.dependencies)

        await offers.developerSettingsRowTapped()

        #expect(offers.promptModel?.isPresented == true)
        #expect(offers.promptModel?.layout == .blocked)
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("PERM-19 when the OS check fails, the developer row still opens the modal in the ask layout")
    func developerRowWithoutOSState() async {
        let world = PermissionWorld(.notDetermined)
        world.system.stateError = PermissionCheckFailed()
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        await offers.developerSettingsRowTapped()

        #expect(offers.promptModel?.layout == .ask)
    }

    @Test("PERM-13 closing a modal opened from developer settings goes Home and sets the dismissal marker")
    func developerRowCloseGoesHome() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        await offers.developerSettingsRowTapped()

        offers.promptModel?.notNowTapped()

        #expect(offers.promptModel == nil)
        #expect(world.navigator.openedPaths == ["/"])
        #expect(world.isDismissalMarkerSet)
    }

    @Test("PERM-11 request error: the danger toast outlives the modal, which closes")
    func requestErrorToastOutlivesTheModal() async {
        let world = PermissionWorld(.notDetermined)
        world.system.nextAnswer = .failure(PermissionCheckFailed())
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.orderConfirmed()
        await world.clock.advance(by: .milliseconds(1200))

        await offers.promptModel?.turnOnTapped()

        #expect(offers.promptModel == nil)
        #expect(offers.toast == PermissionPromptCopy.errorToast)
        #expect(offers.toast?.kind == .danger)
        #expect(world.navigator.openedPaths == ["/"])
    }

    @Test("PERM-11 the danger toast that outlived the modal goes once its duration has passed")
    func lingeringToastExpires() async {
        let world = PermissionWorld(.notDetermined)
        world.system.nextAnswer = .failure(PermissionCheckFailed())
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        await offers.developerSettingsRowTapped()
        await offers.promptModel?.turnOnTapped()
        #expect(offers.toast == PermissionPromptCopy.errorToast)

        await world.clock.advance(by: PermissionPromptCopy.errorToast.duration - .milliseconds(1))
        #expect(offers.toast == PermissionPromptCopy.errorToast)
        await world.clock.advance(by: .milliseconds(1))
        #expect(offers.toast == nil)
    }

    @Test("PERM-11 the danger toast that outlived the modal, swiped away, goes at once and its timer with it")
    func lingeringToastDismissed() async {
        let world = PermissionWorld(.notDetermined)
        world.system.nextAnswer = .failure(PermissionCheckFailed())
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        await offers.developerSettingsRowTapped()
        await offers.promptModel?.turnOnTapped()

        offers.toastDismissed()

        #expect(offers.toast == nil)
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("PERM-03 granted from the Home offer: the modal is gone and no toast lingers")
    func grantedFromHome() async {
        let world = PermissionWorld(.notDetermined)
        world.allowRecordingDecisions()
        world.system.nextAnswer = .state(.authorized)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)
        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))

        await offers.promptModel?.turnOnTapped()

        #expect(offers.promptModel == nil)
        #expect(offers.toast == nil)
        #expect(world.backend.decisions == [true])
    }
}
