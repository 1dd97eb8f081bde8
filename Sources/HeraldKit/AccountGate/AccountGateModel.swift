import Observation

/// The account gate in front of every route of the app (GATE-01..GATE-08).
///
/// A guest passes at once. A signed-in cold start shows the blocking splash while the account
/// stage loads; later loading (a token refresh) never blocks. The gate gives up into "Can't load
/// your account" when the stage is still unknown once the 5 s profile wait has passed, or when
/// the 15 s backstop fires while it still blocks. A ready stage runs the pending sign-in action
/// once; needs-details opens the account details sheet once; a closed account is signed out
/// without a word. The gate also tells ``PermissionOfferCoordinator`` when the Home offer may
/// be scheduled.
///
/// The app calls ``sessionStarted(userID:isColdStart:)`` at a cold start, a sign-in and a
/// sign-out, and ``accountStageChanged(_:)`` whenever its account service reports a stage.
@MainActor @Observable public final class AccountGateModel {
    /// How long a signed-in cold start waits for a known stage before an unknown one fails (GATE-03).
    public static let profileWait: Duration = .seconds(5)
    /// How long the blocking splash may stay, whatever the stage (GATE-03).
    public static let backstop: Duration = .seconds(15)

    /// What shows in front of the app.
    public private(set) var content: AccountGateContent = .app
    /// The signed-in user; `nil` for a guest.
    public private(set) var userID: String?
    /// The last stage reported for the signed-in user.
    public private(set) var stage: AccountStage?
    /// Continue browsing was tapped: Home shows without the account, and its skeletons stay.
    public private(set) var isDegraded = false

    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private let shell: AppShellClient
    @ObservationIgnored private let offers: PermissionOfferCoordinator?
    @ObservationIgnored private var isBlocking = false
    @ObservationIgnored private var hasProfileWaitPassed = false
    @ObservationIgnored private var profileWaitTimer: Task<Void, Never>?
    @ObservationIgnored private var backstopTimer: Task<Void, Never>?
    @ObservationIgnored private var isRetrying = false
    @ObservationIgnored private var hasOpenedDetails = false
    @ObservationIgnored private var pendingSignInAction: (@MainActor () -> Void)?
    @ObservationIgnored private var focusedTab: AppTab?
    @ObservationIgnored private var isPushTokenRegistered = false

    /// - Parameters:
    ///   - dependencies: the clock and the navigator are used.
    ///   - shell: the account service and sign-out.
    ///   - offers: told when the Home offer may be scheduled (GATE-08); `nil` when the app
    ///     offers nothing on Home.
    public init(dependencies: HeraldDependencies, shell: AppShellClient, offers: PermissionOfferCoordinator? = nil) {
        self.dependencies = dependencies
        self.shell = shell
        self.offers = offers
    }

    /// The session is known: at a cold start, after a sign-in or after a sign-out. A guest gets
    /// the app at once (GATE-01). A signed-in cold start blocks until the stage resolves or the
    /// gate gives up (GATE-02, GATE-03); a sign-in during the run never blocks. A signed-in
    /// session that ends takes its pending sign-in action with it (GATE-07).
    public func sessionStarted(userID: String?, isColdStart: Bool) {
        stopTimers()
        if self.userID != nil, userID != self.userID { pendingSignInAction = nil }
        self.userID = userID
        isDegraded = false
        isRetrying = false
        hasOpenedDetails = false
        stage = userID == nil ? nil : .loading
        isBlocking = userID != nil && isColdStart
        content = isBlocking ? .blockingSplash : .app
        if isBlocking {
            hasProfileWaitPassed = false
            profileWaitTimer = dependencies.clock.scheduled(after: Self.profileWait) { [weak self] in
                self?.profileWaitPassed()
            }
            backstopTimer = dependencies.clock.scheduled(after: Self.backstop) { [weak self] in
                self?.backstopFired()
            }
        }
        reportHomeConditions()
    }

    /// The account service reported a stage for the signed-in user. Loading after the gate
    /// opened (a token refresh) never blocks again (GATE-02).
    public func accountStageChanged(_ stage: AccountStage) {
        guard userID != nil else { return }
        self.stage = stage
        switch stage {
        case .loading:
            break
        case .unknown:
            if case .accountError = content {
                showAccountError()
            } else if isBlocking, hasProfileWaitPassed {
                showAccountError()
            }
        case .ready:
            resolve()
            runPendingSignInAction()
        case .needsDetails:
            resolve()
            openDetailsOnce()
        case .closed:
            resolve()
            signOutSilently()
            return
        }
        reportHomeConditions()
    }

    /// Try again on the account error: re-checks the account, the button spinning meanwhile
    /// (GATE-03, GATE-04). The error stays unless a stage resolves.
    public func tryAgainTapped() async {
        guard case .accountError = content, !isRetrying else { return }
        isRetrying = true
        showAccountError()
        await shell.reloadAccount()
        isRetrying = false
        if case .accountError = content { showAccountError() }
    }

    /// Continue browsing on the account error: Home shows, degraded (GATE-03). A stage that
    /// resolves later still applies.
    public func continueBrowsingTapped() {
        guard case .accountError = content else { return }
        content = .app
        isDegraded = true
    }

    /// Stores an action to run once the signed-in account is ready, such as the step a guest
    /// wanted before the sign-in sheet; it runs once (GATE-07). Runs at once when the account
    /// is ready already. A later action replaces one not yet run; a sign-out drops it.
    public func runWhenSignedIn(_ action: @escaping @MainActor () -> Void) {
        if userID != nil, stage == .ready {
            action()
        } else {
            pendingSignInAction = action
        }
    }

    /// The tab in front changed; `nil` when a pushed screen covers the tabs (GATE-08).
    public func tabFocused(_ tab: AppTab?) {
        focusedTab = tab
        reportHomeConditions()
    }

    /// Whether this device has a push token registered for the signed-in user
    /// (``PushRegistrar/isTokenRegistered``) (GATE-08).
    public func pushTokenRegistrationChanged(isRegistered: Bool) {
        isPushTokenRegistered = isRegistered
        reportHomeConditions()
    }

    private func profileWaitPassed() {
        hasProfileWaitPassed = true
        if isBlocking, case .unknown = stage { showAccountError() }
    }

    private func backstopFired() {
        if isBlocking { showAccountError() }
    }

    private func showAccountError() {
        isBlocking = false
        stopTimers()
        let failure: AccountStageFailure = if case .unknown(let failure) = stage { failure } else { .failed }
        content = .accountError(AccountErrorState(failure: failure, isRetrying: isRetrying))
    }

    private func resolve() {
        stopTimers()
        isBlocking = false
        isDegraded = false
        content = .app
    }

    private func runPendingSignInAction() {
        guard let action = pendingSignInAction else { return }
        pendingSignInAction = nil
        action()
    }

    private func openDetailsOnce() {
        guard !hasOpenedDetails else { return }
        hasOpenedDetails = true
        // A router without the sheet leaves the person where they are; the stage stays.
        try? dependencies.navigator.open(AppRouteTable.accountDetailsPath)
    }

    /// A deleted or suspended account: signed out, no message, and the person lands on guest
    /// Home (GATE-06).
    private func signOutSilently() {
        sessionStarted(userID: nil, isColdStart: false)
        try? dependencies.navigator.open(AppRouteTable.homePath)
        let shell = shell
        Task { await shell.signOut() }
    }

    private func stopTimers() {
        profileWaitTimer?.cancel()
        profileWaitTimer = nil
        backstopTimer?.cancel()
        backstopTimer = nil
    }

    /// Only a ready stage, Home in front and no registered token let the offer be scheduled;
    /// the coordinator makes it once per session (GATE-08, PERM-14).
    private func reportHomeConditions() {
        offers?.homeConditionsChanged(
            HomeOfferConditions(
                isSignedIn: userID != nil, isAccountReady: stage == .ready, isHomeFocused: focusedTab == .home,
                isPushTokenRegistered: isPushTokenRegistered))
    }
}
