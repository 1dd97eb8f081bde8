import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Home banner and consent sheet")
@MainActor struct ConsentBannerModelTests {
    struct OSDialogFailed: Error {}

    /// A banner on Home for someone never asked, with analytics installed, and the recording
    /// of OS decisions when the test expects one.
    private func visibleBanner(
        _ state: NotificationPermissionState = .notDetermined, platform: DevicePlatform = .ios,
        recordsDecision: Bool = false
    ) async -> (PermissionWorld, ConsentBannerModel) {
        let world = PermissionWorld(state, platform: platform)
        world.allowAnalytics()
        if recordsDecision { world.allowRecordingDecisions() }
        let banner = ConsentBannerModel(dependencies: world.dependencies)
        await banner.homeAppeared()
        return (world, banner)
    }

    /// The banner's sheet, opened.
    private func openSheet(
        _ state: NotificationPermissionState = .notDetermined, platform: DevicePlatform = .ios,
        recordsDecision: Bool = false
    ) async -> (PermissionWorld, ConsentBannerModel) {
        let (world, banner) = await visibleBanner(state, platform: platform, recordsDecision: recordsDecision)
        banner.bannerTapped()
        return (world, banner)
    }

    @Test(
        "CONSENT-01 the Home banner shows with promotional copy when permission was never asked",
        arguments: PermissionCases.undecided)
    func bannerShowsWhenNeverAsked(platform: DevicePlatform, state: NotificationPermissionState) async {
        let (_, banner) = await visibleBanner(state, platform: platform)

        #expect(banner.isVisible)
        #expect(banner.title == ConsentCopy.bannerTitle)
        #expect(banner.message == ConsentCopy.bannerMessage)
        #expect(banner.sheet == nil)
    }

    @Test("CONSENT-02 the banner is hidden once permission was granted or denied", arguments: PermissionCases.decided)
    func bannerHiddenWhenDecided(platform: DevicePlatform, state: NotificationPermissionState) async {
        let world = PermissionWorld(state, platform: platform)
        let banner = ConsentBannerModel(dependencies: world.dependencies)

        await banner.homeAppeared()

        #expect(!banner.isVisible)
    }

    @Test("CONSENT-02 after an Android denial the OS could ask again, yet the banner stays hidden on later launches")
    func bannerHiddenAfterAndroidDenial() async {
        let (world, banner) = await openSheet(.deniedCanAskAgain, platform: .android, recordsDecision: true)
        world.system.nextAnswer = .state(.deniedCanAskAgain)
        await banner.acceptTapped()

        let nextLaunch = ConsentBannerModel(dependencies: world.dependencies)
        await nextLaunch.homeAppeared()

        #expect(!banner.isVisible)
        #expect(!nextLaunch.isVisible)
    }

    @Test("CONSENT-02 Home appearing again while the OS dialog is open does not bring the banner back after Accept")
    func staleCheckDuringTheDialog() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .pending
        let accept = Task { await banner.acceptTapped() }
        await world.clock.settle()
        world.system.holdsStateReads = true
        let appeared = Task { await banner.homeAppeared() }
        await world.clock.settle()
        #expect(world.system.heldStateReadCount == 1)

        world.system.respond(.state(.authorized))
        await accept.value
        #expect(!banner.isVisible)
        world.system.releaseStateReads()
        await appeared.value

        #expect(!banner.isVisible)
        #expect(world.analytics.names.filter { $0 == ConsentEvent.bannerShown }.count == 1)
    }

    @Test("CONSENT-02 an earlier Home check answering late does not override a later one")
    func earlierCheckAnsweringLate() async {
        let (world, banner) = await visibleBanner()
        world.system.holdsStateReads = true
        let earlier = Task { await banner.homeAppeared() }
        await world.clock.settle()
        world.system.holdsStateReads = false
        world.system.current = .authorized  // granted in Settings meanwhile

        await banner.homeAppeared()
        #expect(!banner.isVisible)
        world.system.releaseStateReads()
        await earlier.value

        #expect(!banner.isVisible)
        #expect(world.analytics.names == [ConsentEvent.bannerShown])
    }

    @Test("CONSENT-02 a failed OS check hides the banner")
    func bannerHiddenWhenTheCheckFails() async {
        let world = PermissionWorld(.notDetermined)
        world.system.stateError = OSDialogFailed()
        let banner = ConsentBannerModel(dependencies: world.dependencies)

        await banner.homeAppeared()

        #expect(!banner.isVisible)
    }

    @Test(
        "CONSENT-03 tapping the banner presents the consent sheet with artwork, Cancel (outline) and Accept (primary)")
    func tapPresentsTheSheet() async throws {
        let (_, banner) = await openSheet()

        let sheet = try #require(banner.sheet)
        #expect(sheet.artwork == ConsentCopy.sheetArtwork)
        #expect(sheet.title == ConsentCopy.sheetTitle)
        #expect(sheet.message == ConsentCopy.sheetMessage)
        #expect(sheet.cancelButton == ButtonState(title: "Cancel"))
        #expect(sheet.cancelStyle == .outline)
        #expect(sheet.acceptButton == ButtonState(title: "Accept"))
        #expect(sheet.acceptStyle == .primary)
    }

    @Test("CONSENT-04 Accept shows the OS permission dialog at once", arguments: PermissionCases.undecided)
    func acceptRequestsImmediately(platform: DevicePlatform, state: NotificationPermissionState) async {
        let (world, banner) = await openSheet(state, platform: platform, recordsDecision: true)
        world.system.nextAnswer = .pending

        let accept = Task { await banner.acceptTapped() }
        await world.clock.settle()

        #expect(world.system.isDialogOpen)
        #expect(world.system.requests == 1)
        #expect(world.clock.elapsed == .zero)
        #expect(banner.sheet?.acceptButton == ButtonState(title: "Accept", isLoading: true, isDisabled: true))
        #expect(banner.sheet?.cancelButton.isDisabled == true)
        banner.sheetSwipedAway()
        #expect(banner.sheet != nil)

        world.system.respond(.state(.authorized))
        await accept.value
    }

    @Test(
        "CONSENT-05 granted: a success toast, the sheet closes and the banner hides",
        arguments: PermissionCases.grants)
    func grantedClosesAndHides(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let (world, banner) = await openSheet(before, platform: platform, recordsDecision: true)
        world.system.nextAnswer = .state(after)

        await banner.acceptTapped()

        #expect(banner.toast == ConsentCopy.grantedToast)
        #expect(banner.toast?.kind == .success)
        #expect(banner.sheet == nil)
        #expect(!banner.isVisible)
        #expect(world.backend.decisions == [true])
    }

    @Test(
        "CONSENT-06 denied: a denied toast and the sheet closes",
        arguments: PermissionCases.refusals)
    func deniedCloses(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let (world, banner) = await openSheet(before, platform: platform, recordsDecision: true)
        world.system.nextAnswer = .state(after)

        await banner.acceptTapped()

        #expect(banner.toast == ConsentCopy.deniedToast)
        #expect(banner.toast?.kind == .warning)
        #expect(banner.sheet == nil)
        #expect(!banner.isVisible)
        #expect(world.backend.decisions == [false])
    }

    @Test("CONSENT-05 the success toast goes once its 3 s have passed")
    func grantedToastExpires() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .state(.authorized)
        await banner.acceptTapped()

        await world.clock.advance(by: .milliseconds(2999))
        #expect(banner.toast == ConsentCopy.grantedToast)
        await world.clock.advance(by: .milliseconds(1))
        #expect(banner.toast == nil)
    }

    @Test("CONSENT-06 a denied toast swiped away goes at once, and its timer with it")
    func deniedToastDismissed() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .state(.blocked)
        await banner.acceptTapped()
        #expect(banner.toast == ConsentCopy.deniedToast)
        await world.clock.advance(by: .seconds(1))

        banner.toastDismissed()

        #expect(banner.toast == nil)
        await world.clock.settle()
        #expect(world.clock.sleeperCount == 0)
    }

    @Test("CONSENT-06 a toast that replaces another shows for its own full duration")
    func replacingToastGetsItsOwnDuration() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .failure(OSDialogFailed())
        await banner.acceptTapped()
        #expect(banner.toast == ConsentCopy.errorToast)
        await world.clock.advance(by: .seconds(2))

        banner.bannerTapped()
        world.system.nextAnswer = .state(.blocked)
        await banner.acceptTapped()
        await world.clock.advance(by: .milliseconds(2999))
        #expect(banner.toast == ConsentCopy.deniedToast)
        await world.clock.advance(by: .milliseconds(1))
        #expect(banner.toast == nil)
    }

    @Test("CONSENT-06 the OS request throws: a danger toast, the sheet closes and the banner stays")
    func requestErrorClosesTheSheet() async {
        let (world, banner) = await openSheet()
        world.system.nextAnswer = .failure(OSDialogFailed())

        await banner.acceptTapped()

        #expect(banner.toast == ConsentCopy.errorToast)
        #expect(banner.sheet == nil)
        #expect(banner.isVisible)
        #expect(world.analytics.names.last == ConsentEvent.accepted)
    }

    @Test(
        "CONSENT-06 an OS dialog closed without a choice is no denial: no toast, the sheet closes and the banner stays")
    func noChoiceIsNoDenial() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .state(.notDetermined)

        await banner.acceptTapped()

        #expect(banner.sheet == nil)
        #expect(banner.toast == nil)
        #expect(banner.isVisible)
        #expect(!world.isDismissalMarkerSet)
        banner.bannerTapped()
        #expect(banner.sheet != nil)
    }

    @Test("CONSENT-07 Cancel or a swipe closes the sheet and the banner remains", arguments: [true, false])
    func cancelKeepsTheBanner(swiped: Bool) async {
        let (world, banner) = await openSheet()

        if swiped { banner.sheetSwipedAway() } else { banner.cancelTapped() }

        #expect(banner.sheet == nil)
        #expect(banner.isVisible)
        #expect(banner.toast == nil)
        #expect(world.system.requests == 0)
        #expect(!world.isDismissalMarkerSet)
        banner.bannerTapped()
        #expect(banner.sheet != nil)
    }

    @Test("EVENT-01 notification_banner_shown when the banner becomes visible, once while it stays visible")
    func bannerShownEvent() async {
        let (world, banner) = await visibleBanner()
        #expect(world.analytics.names == ["notification_banner_shown"])

        await banner.homeAppeared()
        #expect(world.analytics.names == ["notification_banner_shown"])
    }

    @Test("EVENT-01 no notification_banner_shown when the banner stays hidden")
    func noBannerShownWhenHidden() async {
        let world = PermissionWorld(.authorized)
        let banner = ConsentBannerModel(dependencies: world.dependencies)
        await banner.homeAppeared()
        #expect(!banner.isVisible)
    }

    @Test("EVENT-02 notification_banner_tapped on banner tap")
    func bannerTappedEvent() async {
        let (world, _) = await openSheet()
        #expect(world.analytics.names.contains("notification_banner_tapped"))
        #expect(world.analytics.names.firstIndex(of: "notification_banner_tapped") == 1)
    }

    @Test("EVENT-03 notification_consent_sheet_shown when the sheet becomes visible")
    func sheetShownEvent() async {
        let (world, banner) = await visibleBanner()
        banner.bannerTapped()
        #expect(
            world.analytics.names == [
                "notification_banner_shown", "notification_banner_tapped", "notification_consent_sheet_shown",
            ])
        banner.bannerTapped()
        #expect(world.analytics.names.count == 3)
    }

    @Test("EVENT-04 notification_consent_accepted on Accept, before the OS answers")
    func acceptedEvent() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .pending
        let accept = Task { await banner.acceptTapped() }
        await world.clock.settle()

        #expect(world.analytics.names.last == "notification_consent_accepted")

        world.system.respond(.state(.authorized))
        await accept.value
    }

    @Test("EVENT-05 notification_consent_cancelled on Cancel or dismissal", arguments: [true, false])
    func cancelledEvent(swiped: Bool) async {
        let (world, banner) = await openSheet()
        if swiped { banner.sheetSwipedAway() } else { banner.cancelTapped() }
        #expect(world.analytics.names.last == "notification_consent_cancelled")
        #expect(world.analytics.names.filter { $0 == "notification_consent_cancelled" }.count == 1)
    }

    @Test("EVENT-06 notification_permission_granted when the grant is confirmed", arguments: PermissionCases.undecided)
    func grantedEvent(platform: DevicePlatform, state: NotificationPermissionState) async {
        let (world, banner) = await openSheet(state, platform: platform, recordsDecision: true)
        world.system.nextAnswer = .state(.authorized)

        await banner.acceptTapped()

        #expect(
            world.analytics.names == [
                "notification_banner_shown", "notification_banner_tapped", "notification_consent_sheet_shown",
                "notification_consent_accepted", "notification_permission_granted",
            ])
    }

    @Test(
        "EVENT-07 notification_permission_denied when the denial is confirmed",
        arguments: PermissionCases.refusals)
    func deniedEvent(
        platform: DevicePlatform, before: NotificationPermissionState, after: NotificationPermissionState
    ) async {
        let (world, banner) = await openSheet(before, platform: platform, recordsDecision: true)
        world.system.nextAnswer = .state(after)

        await banner.acceptTapped()

        #expect(world.analytics.names.suffix(2) == ["notification_consent_accepted", "notification_permission_denied"])
        #expect(!world.analytics.names.contains("notification_permission_granted"))
    }

    @Test("EVENT-07 an OS dialog closed without a choice logs no decision")
    func noChoiceLogsNoDecision() async {
        let (world, banner) = await openSheet(recordsDecision: true)
        world.system.nextAnswer = .state(.notDetermined)

        await banner.acceptTapped()

        #expect(world.analytics.names.last == "notification_consent_accepted")
        #expect(!world.analytics.names.contains("notification_permission_denied"))
        #expect(world.backend.decisions.isEmpty)
    }
}
