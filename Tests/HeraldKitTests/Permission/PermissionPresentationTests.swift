import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Permission presentation chosen by configuration")
@MainActor struct PermissionPresentationTests {
    @Test("PERM-14 with the soft-ask modal configured, Home offers the modal and shows no banner")
    func softAskModalOnHome() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .softAskModal, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        await world.clock.advance(by: .milliseconds(1500))

        #expect(offers.consentBanner == nil)
        #expect(offers.promptModel != nil)
    }

    @Test("CONSENT-01 with the Home banner configured, Home shows the banner and never the modal")
    func homeBannerOnHome() async throws {
        let world = PermissionWorld(.notDetermined)
        world.allowAnalytics()
        let offers = PermissionOfferCoordinator(presentation: .homeBanner, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(10))
        #expect(offers.promptModel == nil)
        #expect(world.clock.sleeperCount == 0)

        let banner = try #require(offers.consentBanner)
        await banner.homeAppeared()
        #expect(banner.isVisible)
    }

    @Test("PUSH-02 with asking at sign-in configured, Home offers neither the modal nor the banner")
    func askAtSignInOffersNothingOnHome() async {
        let world = PermissionWorld(.notDetermined)
        let offers = PermissionOfferCoordinator(presentation: .askAtSignIn, dependencies: world.dependencies)

        offers.homeConditionsChanged(PermissionCases.onHome)
        offers.orderConfirmed()
        await world.clock.advance(by: .seconds(10))

        #expect(offers.consentBanner == nil)
        #expect(offers.promptModel == nil)
        #expect(world.system.stateReads == 0)
    }
}
