import Observation

/// The "Know when your order ships" modal: a soft ask before the OS notification dialog
/// (PERM-02..PERM-17).
///
/// Every close (granted, Not now, Open Settings, a denial, an error, a removal) goes Home and
/// writes the dismissal marker, so the offer does not come back (PERM-06, PERM-13).
@MainActor @Observable public final class PermissionPromptModel {
    /// Which of the two layouts shows.
    public enum Layout: Sendable, Equatable {
        /// The OS can still ask: "Stay in the loop" with "Turn on notifications" (PERM-08).
        case ask
        /// The OS will not ask again: "Notifications are turned off" with "Open Settings" (PERM-15).
        case blocked
    }

    private enum Phase {
        case idle, requesting, closingAfterDenial, closed
    }

    /// How long after it appears the modal refuses swipe, back and programmatic removal (PERM-07).
    public static let removalGuardDuration: Duration = .milliseconds(800)
    /// How long the "Notifications Disabled" toast shows before the modal closes (PERM-04).
    public static let closeAfterDenialDelay: Duration = .seconds(3)
    /// Where every close goes (PERM-13).
    public static let homePath = "/"

    /// The layout now showing; a final denial flips it to ``Layout/blocked`` (PERM-16).
    public private(set) var layout: Layout
    /// The toast over the modal: a denial (PERM-04) or a request error (PERM-05).
    public private(set) var toast: Toast?
    private var phase: Phase = .idle
    private var isRemovalGuarded = true

    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private let onClose: @MainActor (_ lingeringToast: Toast?) -> Void
    @ObservationIgnored private var removalGuard: Task<Void, Never>?
    @ObservationIgnored private var closeTimer: Task<Void, Never>?

    /// A modal for the OS permission `permission` as it stands when the modal opens.
    ///
    /// `onClose` runs once, when the modal closes, with a toast that must outlive it (the
    /// request error) or `nil`; the presenter removes the modal and shows that toast.
    public init(
        permission: NotificationPermissionState, dependencies: HeraldDependencies,
        onClose: @escaping @MainActor (_ lingeringToast: Toast?) -> Void
    ) {
        self.layout = permission.isBlockedBySystem ? .blocked : .ask
        self.dependencies = dependencies
        self.onClose = onClose
    }

    /// Whether the modal is still up.
    public var isPresented: Bool { phase != .closed }

    /// Whether the OS dialog is open over the modal (PERM-09).
    public var isRequesting: Bool { phase == .requesting }

    /// Whether swipe, back or a programmatic removal may close the modal: not in the first
    /// 800 ms after it appears (PERM-07), nor while the OS dialog is open.
    public var canDismiss: Bool {
        !isRemovalGuarded && (phase == .idle || phase == .closingAfterDenial)
    }

    /// "Stay in the loop", or "Notifications are turned off" when the OS blocks.
    public var title: String {
        switch layout {
        case .ask: PermissionPromptCopy.askTitle
        case .blocked: PermissionPromptCopy.blockedTitle
        }
    }

    /// The body under the title.
    public var message: String {
        switch layout {
        case .ask: PermissionPromptCopy.askMessage
        case .blocked: PermissionPromptCopy.blockedMessage
        }
    }

    /// "Turn on notifications", loading and disabled while the OS dialog is open (PERM-02),
    /// or "Open Settings" when the OS will not ask again (PERM-15).
    public var primaryButton: ButtonState {
        switch layout {
        case .ask:
            ButtonState(
                title: PermissionPromptCopy.turnOnButton, isLoading: phase == .requesting, isDisabled: phase != .idle)
        case .blocked:
            ButtonState(title: PermissionPromptCopy.openSettingsButton, isDisabled: phase != .idle)
        }
    }

    /// "Not now", disabled while a decision is under way.
    public var secondaryButton: ButtonState {
        ButtonState(title: PermissionPromptCopy.notNowButton, isDisabled: phase != .idle)
    }

    /// The modal is on screen: starts the 800 ms removal guard (PERM-07).
    public func appeared() {
        guard removalGuard == nil, isPresented else { return }
        removalGuard = dependencies.clock.scheduled(after: Self.removalGuardDuration) { [weak self] in
            self?.isRemovalGuarded = false
        }
    }

    /// "Turn on notifications": shows the OS dialog and acts on its answer (PERM-02..PERM-05,
    /// PERM-16), recording the decision with the backend (STORE-03).
    public func turnOnTapped() async {
        guard layout == .ask, phase == .idle else { return }
        phase = .requesting
        let state: NotificationPermissionState
        do {
            state = try await dependencies.permission.request()
        } catch {
            toast = PermissionPromptCopy.errorToast
            close(lingeringToast: PermissionPromptCopy.errorToast)
            return
        }
        permissionResponse(state)
        await dependencies.recordPermissionDecision(state)
    }

    /// "Open Settings": opens the system settings, then closes (PERM-17).
    public func openSettingsTapped() async {
        guard layout == .blocked, phase == .idle else { return }
        await dependencies.settings.openNotificationSettings()
        close()
    }

    /// "Not now": closes without asking (PERM-06).
    public func notNowTapped() {
        guard phase == .idle else { return }
        close()
    }

    /// A swipe, a back gesture or the app's router wants the modal gone. Refused (answers
    /// `false`) during the removal guard and while the OS dialog is open; otherwise closes like
    /// Not now (PERM-06, PERM-07).
    @discardableResult public func removalRequested() -> Bool {
        guard canDismiss else { return false }
        close()
        return true
    }

    private func permissionResponse(_ state: NotificationPermissionState) {
        if state.isGranted {
            close()
        } else if state.isBlockedBySystem {
            layout = .blocked
            phase = .idle
        } else {
            toast = PermissionPromptCopy.deniedToast
            phase = .closingAfterDenial
            closeTimer = dependencies.clock.scheduled(after: Self.closeAfterDenialDelay) { [weak self] in
                self?.close()
            }
        }
    }

    private func close(lingeringToast: Toast? = nil) {
        guard phase != .closed else { return }
        phase = .closed
        removalGuard?.cancel()
        closeTimer?.cancel()
        dependencies.storage.setFlag(StorageKey.permissionPromptDismissed)
        try? dependencies.navigator.open(Self.homePath)
        onClose(lingeringToast)
    }
}
