import Observation

/// The Home banner that invites someone who was never asked to turn on notifications, and the
/// consent sheet it opens (CONSENT-01..CONSENT-07), with its analytics (EVENT-01..EVENT-07).
///
/// Once the OS dialog has decided through the sheet, the soft ask is done: the dismissal
/// marker is written, so the banner stays hidden on later launches too (CONSENT-02).
@MainActor @Observable public final class ConsentBannerModel {
    /// Whether the banner shows on Home.
    public private(set) var isVisible = false
    /// The toast over Home after the sheet closes; it goes once its duration has passed, or
    /// with ``toastDismissed()``.
    public var toast: Toast? { toastSlot.toast }
    private var isSheetPresented = false
    private var isRequesting = false

    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private let toastSlot: ToastSlot
    /// Moves on with every Home check and every OS decision, so a check that answers after
    /// either is dropped.
    @ObservationIgnored private var visibilityGeneration = 0

    /// A hidden banner; ``homeAppeared()`` decides whether it shows.
    public init(dependencies: HeraldDependencies) {
        self.dependencies = dependencies
        self.toastSlot = ToastSlot(clock: dependencies.clock)
    }

    /// The banner's headline.
    public var title: String { ConsentCopy.bannerTitle }
    /// The banner's promotional line (CONSENT-01).
    public var message: String { ConsentCopy.bannerMessage }

    /// The consent sheet while it is presented.
    public var sheet: ConsentSheet? {
        isSheetPresented ? ConsentSheet(isRequesting: isRequesting) : nil
    }

    /// Home is on screen: the banner shows when the permission was never asked and the soft
    /// ask is not done (CONSENT-01, CONSENT-02). A failed OS check hides it. A check overtaken
    /// by a later one, or by a decision in the consent sheet, changes nothing.
    public func homeAppeared() async {
        visibilityGeneration += 1
        let generation = visibilityGeneration
        let visible = await dependencies.permissionOfferState() != nil
        guard generation == visibilityGeneration else { return }
        if visible && !isVisible { log(ConsentEvent.bannerShown) }
        isVisible = visible
    }

    /// The banner was tapped: presents the consent sheet (CONSENT-03).
    public func bannerTapped() {
        guard isVisible, !isSheetPresented else { return }
        log(ConsentEvent.bannerTapped)
        isSheetPresented = true
        log(ConsentEvent.sheetShown)
    }

    /// Accept: the OS dialog at once (CONSENT-04); its decision closes the sheet with a toast
    /// (CONSENT-05, CONSENT-06), hides the banner for good and is logged and recorded with the
    /// backend (EVENT-06, EVENT-07, STORE-03).
    ///
    /// A dialog that closes without a choice (the permission is still undetermined) decided
    /// nothing: the sheet closes without a toast and the banner stays, so the person is back
    /// where they were before tapping it and can try again.
    public func acceptTapped() async {
        guard isSheetPresented, !isRequesting else { return }
        log(ConsentEvent.accepted)
        isRequesting = true
        let state: NotificationPermissionState
        do {
            state = try await dependencies.permission.request()
        } catch {
            closeSheet()
            toastSlot.show(ConsentCopy.errorToast)
            return
        }
        closeSheet()
        guard let granted = state.decision else { return }
        toastSlot.show(granted ? ConsentCopy.grantedToast : ConsentCopy.deniedToast)
        isVisible = false
        visibilityGeneration += 1
        dependencies.storage.setFlag(StorageKey.permissionPromptDismissed)
        await dependencies.recordPermissionDecision(state)
    }

    /// The toast was swiped away: it goes at once.
    public func toastDismissed() {
        toastSlot.dismiss()
    }

    /// Cancel: the sheet closes and the banner stays (CONSENT-07).
    public func cancelTapped() { sheetClosedWithoutAnswer() }

    /// The sheet was swiped away: like Cancel (CONSENT-07).
    public func sheetSwipedAway() { sheetClosedWithoutAnswer() }

    private func sheetClosedWithoutAnswer() {
        guard isSheetPresented, !isRequesting else { return }
        isSheetPresented = false
        log(ConsentEvent.cancelled)
    }

    private func closeSheet() {
        isRequesting = false
        isSheetPresented = false
    }

    private func log(_ name: String) { dependencies.analytics.log(name) }
}
