import Observation

/// Decides when the app offers notifications and presents the offer: the soft-ask modal on
/// Home (PERM-14) and after an order (PERM-18), or the Home banner, as ``PermissionPresentation``
/// says; and the modal from the developer settings row in every presentation (PERM-19).
///
/// The app shows ``promptModel`` as a modal while it is set, ``consentBanner`` on Home when it
/// is set, and ``toast`` over whatever is in front.
@MainActor @Observable public final class PermissionOfferCoordinator {
    /// How long Home must stay settled before the modal is offered (PERM-14).
    public static let homeSettleDelay: Duration = .milliseconds(1500)
    /// How long after an order is confirmed the modal is offered (PERM-18).
    public static let orderConfirmationDelay: Duration = .milliseconds(1200)

    /// The presentation the app configured.
    public let presentation: PermissionPresentation
    /// The Home banner; set only for ``PermissionPresentation/homeBanner``.
    public let consentBanner: ConsentBannerModel?
    /// The soft-ask modal while it is up.
    public private(set) var promptModel: PermissionPromptModel?
    /// A toast that outlived the modal (the request error, PERM-05); it goes once its duration
    /// has passed, or with ``toastDismissed()``.
    public var toast: Toast? { toastSlot.toast }

    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private var homeConditions: HomeOfferConditions?
    @ObservationIgnored private var homeTimer: Task<Void, Never>?
    @ObservationIgnored private var offeredOnHomeThisSession = false
    @ObservationIgnored private var orderTimer: Task<Void, Never>?
    @ObservationIgnored private let toastSlot: ToastSlot

    /// Offers for `presentation`; builds the Home banner when that is the presentation.
    public init(presentation: PermissionPresentation, dependencies: HeraldDependencies) {
        self.presentation = presentation
        self.dependencies = dependencies
        self.toastSlot = ToastSlot(clock: dependencies.clock)
        self.consentBanner =
            presentation == .homeBanner ? ConsentBannerModel(dependencies: dependencies) : nil
    }

    /// The shell's state changed (sign-in, account stage, tab, token registration). With the
    /// soft-ask modal, a signed-in, ready account on Home without a registered token gets the
    /// offer once per session after Home stays so for 1.5 s; anything changing sooner cancels
    /// it, also while the OS permission is still being read (PERM-14, GATE-08). Signing out
    /// starts a new session and drops a pending order-confirmation offer.
    public func homeConditionsChanged(_ conditions: HomeOfferConditions) {
        homeConditions = conditions
        if !conditions.isSignedIn {
            offeredOnHomeThisSession = false
            orderConfirmationLeft()
        }
        guard isHomeOfferWanted else {
            homeTimer?.cancel()
            homeTimer = nil
            return
        }
        guard homeTimer == nil else { return }
        homeTimer = dependencies.clock.scheduled(after: Self.homeSettleDelay) { [weak self] in
            await self?.offerOnHome()
        }
    }

    /// An order was confirmed: with the soft-ask modal, the offer follows after 1.2 s, once
    /// per visit of the confirmation screen (PERM-18).
    public func orderConfirmed() {
        guard presentation == .softAskModal, orderTimer == nil else { return }
        orderTimer = dependencies.clock.scheduled(after: Self.orderConfirmationDelay) { [weak self] in
            await self?.offerAfterOrder()
        }
    }

    /// The order confirmation screen was left: a pending offer is dropped, also while the OS
    /// permission is still being read, and the next confirmation is a new visit.
    public func orderConfirmationLeft() {
        orderTimer?.cancel()
        orderTimer = nil
    }

    /// The developer settings row: opens the modal whatever the offer rules say (PERM-19).
    public func developerSettingsRowTapped() async {
        let state = (try? await dependencies.permission.state()) ?? .notDetermined
        present(state)
    }

    /// The toast was swiped away: it goes at once.
    public func toastDismissed() {
        toastSlot.dismiss()
    }

    /// Whether the shell, as last reported, wants the Home offer (PERM-14, GATE-08).
    private var isHomeOfferWanted: Bool {
        presentation == .softAskModal && homeConditions?.allowsHomeOffer == true && !offeredOnHomeThisSession
    }

    /// Home stayed settled for 1.5 s: the modal, when the offer rules allow (PERM-01) and Home
    /// is still settled once the OS has answered. An offer dropped meanwhile was not made, so
    /// coming back to Home starts the wait again.
    private func offerOnHome() async {
        let state = await dependencies.permissionOfferState()
        guard !Task.isCancelled, isHomeOfferWanted else { return }
        offeredOnHomeThisSession = true
        if let state { present(state) }
    }

    /// 1.2 s after an order: the modal when the offer rules allow (PERM-01), unless the
    /// confirmation was left or the person signed out while the OS answered.
    private func offerAfterOrder() async {
        guard let state = await dependencies.permissionOfferState(), !Task.isCancelled else { return }
        present(state)
    }

    private func present(_ state: NotificationPermissionState) {
        guard promptModel == nil else { return }
        promptModel = PermissionPromptModel(permission: state, dependencies: dependencies) { [weak self] toast in
            self?.promptModel = nil
            if let toast { self?.toastSlot.show(toast) }
        }
    }
}
