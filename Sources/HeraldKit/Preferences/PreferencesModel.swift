import HeraldModel
import Observation

/// The Notification Preferences screen (PREFS-01..11, SETTINGS-01..04): the push master switch
/// and one switch per catalog category the user may opt out of, aware of the OS permission.
///
/// The host calls ``appeared()`` each time the screen shows, and when the app comes back to
/// the foreground while it shows (from the system settings, say): it reads the OS permission
/// and the preferences again, so a change made outside the app shows at once (SETTINGS-04).
/// Preferences gate push only; this model never reads or filters the inbox (PREFS-07).
@MainActor @Observable public final class PreferencesModel {
    /// How the master switch looks while the OS blocks notifications and will not ask again.
    /// The product documents differ: the screen map keeps the switch and turning it on opens
    /// Settings (PREFS-10); the requirements disable it (SETTINGS-02). Both show the banner
    /// with Open Settings, and a switch turned on while blocked opens Settings either way.
    public enum BlockedSwitchStyle: Sendable, Equatable {
        /// The switch takes taps; turning it on opens the system settings (PREFS-10).
        case opensSettings
        /// The switch is disabled (SETTINGS-02).
        case disabled
    }

    /// A transient message; the view clears it with ``toastDismissed()`` once its duration ends.
    public private(set) var toast: Toast?

    /// What the screen shows now.
    public var screen: PreferencesScreen {
        switch phase {
        case .loading:
            .loading(message: PreferencesCopy.loading)
        case .signInRequired:
            .signInRequired(
                PreferencesNotice(
                    title: PreferencesCopy.signInTitle, message: PreferencesCopy.signInMessage,
                    button: ButtonState(title: PreferencesCopy.signInButton)))
        case .loadFailed:
            .loadFailed(
                PreferencesNotice(
                    title: PreferencesCopy.loadFailedTitle, message: PreferencesCopy.loadFailedMessage,
                    button: ButtonState(title: PreferencesCopy.tryAgainButton)))
        case .loaded(let saved):
            .loaded(
                PreferencesForm(
                    saved: saved, permission: permission, pending: pending, catalog: catalog,
                    blockedSwitchStyle: blockedSwitchStyle))
        }
    }

    private enum Phase: Equatable {
        case loading
        case signInRequired
        case loadFailed
        /// The preferences as the backend last answered them, filled for the catalog.
        case loaded(Preferences)
    }

    /// The part of the preferences a save answers for.
    private enum SavedField {
        case push
        case category(String)
    }

    /// A save's answer, taken for the field that save named.
    private struct SaveAnswer {
        var field: SavedField
        var answer: Preferences

        /// `preferences` with this save's field as the save answered it.
        func laid(over preferences: Preferences) -> Preferences {
            var merged = preferences
            switch field {
            case .push:
                merged.globalEnabled = answer.globalEnabled
                merged.osPermissionGranted = answer.osPermissionGranted
            case .category(let id):
                merged.categories[id] = answer.categories[id]
            }
            return merged
        }
    }

    private var phase = Phase.loading
    private var permission = NotificationPermissionState.notDetermined
    private var pending = PendingPreferenceSaves()
    @ObservationIgnored private var isLoadRunning = false
    /// The saves answered since the running load began, oldest first. The load's own answer
    /// may predate them, so it gets their fields laid over it.
    @ObservationIgnored private var savesDuringLoad: [SaveAnswer] = []
    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private let catalog: Catalog
    @ObservationIgnored private let blockedSwitchStyle: BlockedSwitchStyle

    /// - Parameters:
    ///   - catalog: the app-config catalog; its opt-out-able categories become the rows.
    ///   - blockedSwitchStyle: how the master switch looks while the OS blocks notifications.
    public init(
        dependencies: HeraldDependencies, catalog: Catalog = .standard,
        blockedSwitchStyle: BlockedSwitchStyle = .opensSettings
    ) {
        self.dependencies = dependencies
        self.catalog = catalog
        self.blockedSwitchStyle = blockedSwitchStyle
    }

    /// The screen showed: loads the preferences and the OS permission. The spinner shows only
    /// until the first answer; later loads keep the form up while they run, and a save that
    /// lands meanwhile is kept over the load's possibly older answer.
    public func appeared() async {
        guard !isLoadRunning else { return }
        isLoadRunning = true
        defer {
            isLoadRunning = false
            savesDuringLoad = []
        }
        if !isLoaded { phase = .loading }
        do {
            var stored = try await dependencies.api.preferences()
            if let current = try? await dependencies.permission.state() {
                permission = current
                stored = await synced(stored)
            }
            // A save that found the session gone meanwhile has the last word.
            guard phase != .signInRequired else { return }
            let newest = savesDuringLoad.reduce(stored) { $1.laid(over: $0) }
            phase = .loaded(newest.filled(catalog: catalog))
        } catch let error as HeraldAPIError where error.kind == .unauthenticated {
            phase = .signInRequired
        } catch {
            if !isLoaded { phase = .loadFailed }
        }
    }

    /// Try again on the load failure.
    public func tryAgainTapped() async {
        await appeared()
    }

    /// Sign in on the guest gate (PREFS-01): presents the auth sheet.
    public func signInTapped() {
        dependencies.navigator.presentSignIn()
    }

    /// Open Settings on the blocked banner (SETTINGS-03).
    public func openSettingsTapped() async {
        await dependencies.settings.openNotificationSettings()
    }

    /// The toast's time ran out, or the person swiped it away.
    public func toastDismissed() {
        toast = nil
    }

    /// The master switch was flipped. Turning it on without OS permission asks the OS first
    /// (PREFS-02), or opens Settings when the OS will not ask again (PREFS-10).
    public func pushSwitchToggled(isOn: Bool) async {
        guard case .loaded(let saved) = phase, pending.push == nil, isOn != saved.isPushOn(with: permission) else {
            return
        }
        if isOn && !permission.isGranted {
            if permission.isBlockedBySystem {
                await dependencies.settings.openNotificationSettings()
            } else {
                await askForPermission()
            }
        } else {
            await savePush(isOn)
        }
    }

    /// A category switch was flipped: saves that category alone, so every other category and
    /// every disabled type stays as stored (PREFS-11). Ignored while push is off (PREFS-05) and
    /// for categories the user cannot opt out of (PREFS-06).
    public func categoryToggled(_ id: String, isOn: Bool) async {
        guard case .loaded(let saved) = phase, saved.isPushOn(with: permission), catalog.canOptOut(category: id),
            pending.categories[id] == nil, (saved.categories[id] ?? true) != isOn
        else { return }
        pending.categories[id] = isOn
        defer { pending.categories[id] = nil }
        do {
            let answer = try await dependencies.api.updatePreferences(PreferencesPatch(categories: [id: isOn]))
            merge(answer, .category(id))
        } catch {
            saveFailed(error)
        }
    }

    private var isLoaded: Bool {
        if case .loaded = phase { true } else { false }
    }

    /// PREFS-03, PREFS-04: the switch shows the new value while the save runs and goes back
    /// if it fails.
    private func savePush(_ isOn: Bool) async {
        pending.push = isOn
        defer { pending.push = nil }
        do {
            merge(try await dependencies.api.updatePreferences(PreferencesPatch(globalEnabled: isOn)), .push)
            toast = isOn ? PreferencesCopy.pushEnabledToast : PreferencesCopy.pushDisabledToast
        } catch {
            saveFailed(error)
        }
    }

    /// PREFS-02, STORE-03: shows the OS dialog and records its answer, which is logged as a
    /// decision (EVENT-06, EVENT-07). A grant turns push on; a refusal saves nothing the
    /// person chose, and warns only when the OS may ask again (a final refusal brings up the
    /// blocked banner instead). A refusal that cannot be recorded goes unreported: the switch
    /// stays off either way.
    private func askForPermission() async {
        pending.push = true
        defer { pending.push = nil }
        let answer: NotificationPermissionState
        do {
            answer = try await dependencies.permission.request()
        } catch {
            toast = PreferencesCopy.permissionErrorToast
            return
        }
        permission = answer
        let decision = dependencies.confirmPermissionDecision(answer)
        if decision == true {
            do {
                merge(try await dependencies.api.recordPermission(true), .push)
                toast = PreferencesCopy.pushEnabledToast
            } catch {
                saveFailed(error)
            }
            return
        }
        if decision == false, let recorded = try? await dependencies.api.recordPermission(false) {
            merge(recorded, .push)
        }
        if !answer.isBlockedBySystem { toast = PreferencesCopy.permissionDeniedToast }
    }

    /// SETTINGS-04: when the OS permission changed in the system settings since the decision
    /// was stored, the start-up sync rules bring the master switch in line. A failed sync
    /// leaves the preferences as stored.
    private func synced(_ stored: Preferences) async -> Preferences {
        let status = PermissionStatus(permission.authorization)
        guard stored.syncing(status: status) != nil else { return stored }
        return (try? await dependencies.api.syncPermission(status)) ?? stored
    }

    /// Takes from a save's answer only the part that save named: saves run side by side and
    /// may answer out of order, so the rest of an answer can be older than what is shown. A
    /// load running meanwhile keeps it too, to lay over its own answer.
    private func merge(_ answer: Preferences, _ field: SavedField) {
        let save = SaveAnswer(field: field, answer: answer)
        if isLoadRunning { savesDuringLoad.append(save) }
        guard case .loaded(let shown) = phase else { return }
        phase = .loaded(save.laid(over: shown))
    }

    /// PREFS-04; a session that ended meanwhile brings back the sign-in gate.
    private func saveFailed(_ error: any Error) {
        if (error as? HeraldAPIError)?.kind == .unauthenticated {
            phase = .signInRequired
        } else {
            toast = PreferencesCopy.saveFailedToast
        }
    }
}
