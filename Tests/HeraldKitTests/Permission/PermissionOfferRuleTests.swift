import HeraldKit
import HeraldModel
import Testing

@Suite("Permission offer rule")
@MainActor struct PermissionOfferRuleTests {
    @Test(
        "PERM-01 offered when not dismissed, not granted and the OS can still ask (iOS undetermined, Android denied with can-ask-again)"
    )
    func offeredWhenUndecided() {
        #expect(PermissionOfferRule.shouldOffer(dismissed: false, state: .notDetermined, on: .ios))
        #expect(PermissionOfferRule.shouldOffer(dismissed: false, state: .deniedCanAskAgain, on: .android))
    }

    @Test("PERM-01 an error while checking the OS permission means no offer", arguments: DevicePlatform.allCases)
    func noOfferWhenTheCheckFailed(platform: DevicePlatform) {
        #expect(!PermissionOfferRule.shouldOffer(dismissed: false, state: nil, on: platform))
    }

    @Test("PERM-12 never once dismissed", arguments: PermissionCases.undecided)
    func neverWhenDismissed(platform: DevicePlatform, state: NotificationPermissionState) {
        #expect(!PermissionOfferRule.shouldOffer(dismissed: true, state: state, on: platform))
    }

    @Test(
        "PERM-12 iOS: only while undetermined, never when granted in any form or denied",
        arguments: NotificationAuthorization.allCases)
    func iOSOnlyWhenUndetermined(authorization: NotificationAuthorization) {
        for canAskAgain in [true, false] {
            let state = NotificationPermissionState(authorization: authorization, canAskAgain: canAskAgain)
            #expect(
                PermissionOfferRule.shouldOffer(dismissed: false, state: state, on: .ios)
                    == (authorization == .notDetermined))
        }
    }

    @Test(
        "PERM-12 Android: only while denied with can-ask-again, never when granted or blocked",
        arguments: [
            (NotificationPermissionState.deniedCanAskAgain, true), (.blocked, false),
            (PermissionCases.androidGranted, false),
            (NotificationPermissionState(authorization: .authorized, canAskAgain: false), false),
            (.notDetermined, false),
        ])
    func androidOnlyWhenDeniedAndAskable(state: NotificationPermissionState, offered: Bool) {
        #expect(PermissionOfferRule.shouldOffer(dismissed: false, state: state, on: .android) == offered)
    }
}
