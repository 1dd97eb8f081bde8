import Foundation
import HeraldModel
import Observation

/// The Notification Preferences screen (PREFS-01..11, SETTINGS-01..04): the push master switch,
/// one switch per catalog category the user may opt out of, aware of the OS permission, and the
/// attention settings: snooze, one switch per source the user got notifications from, quiet
/// hours and the daily digest.
///
/// The host calls ``appeared()`` each time the screen shows, and when the app comes back to
/// the foreground while it shows (from the system settings, say): it reads the OS permission,
/// the preferences and the sources again, so a change made outside the app shows at once
/// (SETTINGS-04). Preferences gate push only; this model never reads or filters the inbox
/// (PREFS-07).
///
/// Choices the documents leave open:
/// - The spinner waits for the preferences and the sources (`GET /v1/me/sources`), loaded side
///   by side. Sources that fail to load never hold up the screen: the form shows, and the
///   sources section says they could not be loaded, with Try again (a reload tries too).
/// - Snooze, sources, quiet hours and the digest change push only, so while push is off they
///   dim and take no taps, like the categories (PREFS-05).
/// - Every row saves at once, shows its new value while it saves and goes back if the save
///   fails, with Could not save preferences (PREFS-04); only the master switch has a success
///   toast (PREFS-03), the other rows show their result in place.
/// - Local times are the device's (``PlatformFacts/timeZone``; UTC when the app names no known
///   zone): a quiet-hours window is saved in the device's zone whenever it changes, and a
///   digest switched on or moved saves the device's zone as the user's `timeZone`, so "08:00"
///   means 08:00 where the person set it.
/// - Quiet hours turned on start as 22:00 to 07:00; turned off they are cleared, so turning them
///   on again starts from those times. A start set equal to the end (no window) is ignored.
/// - The digest turned on for the first time is at 08:00; turned off it keeps its time, which
///   comes back when it is turned on again.
/// - "Until tomorrow morning" ends at 08:00 the next morning on the device's clock (today's 08:00
///   before 04:00; see ``SnoozeChoice/untilTomorrowMorning``). The snooze row shows the end
///   while it is ahead and turns to Not snoozed when the clock passes it, without a reload.
/// - A source switch saves the whole `mutedSources` list: the one the server holds, with the
///   source switches still saving and this one as shown, so switches saved side by side all
///   land; mutes of sources not listed (not heard from lately) are kept.
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

    /// The window quiet hours start with when turned on.
    public static let defaultQuietHoursStart = TimeOfDay(hour: 22, minute: 0)
    public static let defaultQuietHoursEnd = TimeOfDay(hour: 7, minute: 0)
    /// The digest's time when it is turned on for the first time.
    public static let defaultDigestTime = TimeOfDay(hour: 8, minute: 0)

    /// The sources as this model knows them.
    enum SourceList: Equatable {
        /// Not answered yet (the screen's spinner covers it), or Try again is loading them.
        case loading
        case failed
        /// Most recently heard from first.
        case loaded([ReceivedSource])
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
                    blockedSwitchStyle: blockedSwitchStyle, sources: sourceList, snoozeEnd: snoozeEnd,
                    now: dependencies.clock.now(), zone: deviceTimeZone))
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
        case source(String)
        case quietHours
        case digest
        case snooze
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
            case .source(let id):
                let isMuted = answer.mutedSources.contains(id)
                if isMuted, !merged.mutedSources.contains(id) { merged.mutedSources.append(id) }
                if !isMuted { merged.mutedSources.removeAll { $0 == id } }
            case .quietHours:
                merged.quietHours = answer.quietHours
            case .digest:
                merged.digest = answer.digest
                merged.timeZone = answer.timeZone
            case .snooze:
                merged.snoozedUntil = answer.snoozedUntil
            }
            return merged
        }
    }

    private var phase = Phase.loading
    private var permission = NotificationPermissionState.notDetermined
    private var pending = PendingPreferenceSaves()
    private var sourceList = SourceList.loading
    /// The end of the snooze in force while it is ahead; `nil` once the clock passed it.
    private var snoozeEnd: Date?
    /// Wakes when ``snoozeEnd`` passes.
    @ObservationIgnored private var snoozeTimer: Task<Void, Never>?
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

    /// The screen showed: loads the preferences, the OS permission and the sources. The spinner
    /// shows only until the first answer; later loads keep the form up while they run, and a
    /// save that lands meanwhile is kept over the load's possibly older answer. Sources that
    /// fail to load show as such in their section (a list already shown stays).
    public func appeared() async {
        guard !isLoadRunning else { return }
        isLoadRunning = true
        defer {
            isLoadRunning = false
            savesDuringLoad = []
        }
        if !isLoaded { phase = .loading }
        async let sourcesAnswer = fetchSources()
        do {
            var stored = try await dependencies.api.preferences()
            if let current = try? await dependencies.permission.state() {
                permission = current
                stored = await synced(stored)
            }
            let sources = await sourcesAnswer
            // A save that found the session gone meanwhile has the last word.
            guard phase != .signInRequired else { return }
            guard take(sources) else {
                phase = .signInRequired
                return
            }
            let newest = savesDuringLoad.reduce(stored) { $1.laid(over: $0) }
            show(newest.filled(catalog: catalog))
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

    /// Try again in the sources section, after they failed to load.
    public func sourcesTryAgainTapped() async {
        guard isLoaded, sourceList == .failed else { return }
        sourceList = .loading
        if !take(await fetchSources()) { phase = .signInRequired }
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
        guard let saved = pushOnlyRowsSaved, catalog.canOptOut(category: id), pending.categories[id] == nil,
            (saved.categories[id] ?? true) != isOn
        else { return }
        pending.categories[id] = isOn
        defer { pending.categories[id] = nil }
        await save(PreferencesPatch(categories: [id: isOn]), .category(id))
    }

    /// A snooze choice was tapped: pushes wait for an hour, or until the next morning, or the
    /// snooze ends (Off, which does nothing while not snoozed).
    public func snoozeChosen(_ choice: SnoozeChoice) async {
        guard pushOnlyRowsSaved != nil, pending.snooze == nil else { return }
        let end = choice.end(choosingAt: dependencies.clock.now(), in: deviceTimeZone)
        guard end != nil || snoozeEnd != nil else { return }
        pending.snooze = .some(end)
        defer { pending.snooze = nil }
        await save(PreferencesPatch(snoozedUntil: .some(end)), .snooze)
    }

    /// A source's switch was flipped (on: its pushes come; off: muted).
    public func sourceToggled(id: String, isOn: Bool) async {
        guard let saved = pushOnlyRowsSaved, case .loaded(let sources) = sourceList,
            sources.contains(where: { $0.id == id }), pending.sources[id] == nil,
            saved.mutedSources.contains(id) == isOn
        else { return }
        let muted = mutedSources(saved, setting: id, isOn: isOn)
        pending.sources[id] = isOn
        defer { pending.sources[id] = nil }
        await save(PreferencesPatch(mutedSources: muted), .source(id))
    }

    /// The quiet-hours switch was flipped: on starts the 22:00 to 07:00 window in the device's
    /// time zone, off clears the window.
    public func quietHoursToggled(isOn: Bool) async {
        guard let saved = pushOnlyRowsSaved, pending.quietHours == nil, (saved.quietHours != nil) != isOn else {
            return
        }
        let window =
            isOn
            ? QuietHours(
                start: Self.defaultQuietHoursStart.text, end: Self.defaultQuietHoursEnd.text,
                timeZone: deviceTimeZone.identifier)
            : nil
        await saveQuietHours(window)
    }

    /// The start of quiet hours was picked.
    public func quietHoursStartChanged(to start: TimeOfDay) async {
        await quietHoursChanged(start: start, end: nil)
    }

    /// The end of quiet hours was picked.
    public func quietHoursEndChanged(to end: TimeOfDay) async {
        await quietHoursChanged(start: nil, end: end)
    }

    /// The digest switch was flipped: on at the time it had, or 08:00 the first time; off keeps
    /// the time.
    public func digestToggled(isOn: Bool) async {
        guard let saved = pushOnlyRowsSaved, pending.digest == nil, (saved.digest?.enabled == true) != isOn else {
            return
        }
        await saveDigest(
            DigestSettings(enabled: isOn, localTime: saved.digest?.localTime ?? Self.defaultDigestTime.text))
    }

    /// The digest's time was picked (while the digest is on).
    public func digestTimeChanged(to time: TimeOfDay) async {
        guard let saved = pushOnlyRowsSaved, pending.digest == nil, let digest = saved.digest, digest.enabled,
            digest.localTime != time.text
        else { return }
        await saveDigest(DigestSettings(enabled: true, localTime: time.text))
    }

    private var isLoaded: Bool {
        if case .loaded = phase { true } else { false }
    }

    /// The saved preferences while the rows under the master switch take taps: loaded, and
    /// push on (PREFS-05).
    private var pushOnlyRowsSaved: Preferences? {
        guard case .loaded(let saved) = phase, saved.isPushOn(with: permission) else { return nil }
        return saved
    }

    /// The device's time zone as the app names it; `nil` when it names no known one.
    private var namedDeviceTimeZone: TimeZone? {
        dependencies.platform.timeZone.flatMap(TimeZone.init(identifier:))
    }

    /// The device's time zone; UTC (as `GMT`) when the app names no known one.
    private var deviceTimeZone: TimeZone {
        namedDeviceTimeZone ?? .gmt
    }

    /// PREFS-03, PREFS-04: the switch shows the new value while the save runs and goes back
    /// if it fails.
    private func savePush(_ isOn: Bool) async {
        pending.push = isOn
        defer { pending.push = nil }
        if await save(PreferencesPatch(globalEnabled: isOn), .push) {
            toast = isOn ? PreferencesCopy.pushEnabledToast : PreferencesCopy.pushDisabledToast
        }
    }

    /// Saves a new start or end of the window in force, in the device's time zone.
    private func quietHoursChanged(start: TimeOfDay?, end: TimeOfDay?) async {
        guard let saved = pushOnlyRowsSaved, pending.quietHours == nil, let window = saved.quietHours,
            let savedStart = TimeOfDay(window.start), let savedEnd = TimeOfDay(window.end)
        else { return }
        let (newStart, newEnd) = (start ?? savedStart, end ?? savedEnd)
        guard newStart != newEnd, (newStart, newEnd) != (savedStart, savedEnd) else { return }
        await saveQuietHours(
            QuietHours(start: newStart.text, end: newEnd.text, timeZone: deviceTimeZone.identifier))
    }

    /// Saves quiet hours (`nil`: off), shown while the save runs.
    private func saveQuietHours(_ window: QuietHours?) async {
        pending.quietHours = .some(window)
        defer { pending.quietHours = nil }
        await save(PreferencesPatch(quietHours: .some(window)), .quietHours)
    }

    /// Saves the digest, shown while the save runs; one switched on or moved saves the device's
    /// time zone as the user's, when the app names one.
    private func saveDigest(_ digest: DigestSettings) async {
        pending.digest = digest
        defer { pending.digest = nil }
        var patch = PreferencesPatch(digest: .some(digest))
        if digest.enabled, let zone = namedDeviceTimeZone {
            patch.timeZone = .some(zone.identifier)
        }
        await save(patch, .digest)
    }

    /// The whole muted list to save with `id`'s switch at `isOn`: the server's list, with the
    /// source switches still saving and this one as shown.
    private func mutedSources(_ saved: Preferences, setting id: String, isOn: Bool) -> [String] {
        var muted = saved.mutedSources
        for (source, sourceIsOn) in pending.sources.sorted(by: { $0.key < $1.key }) + [(key: id, value: isOn)] {
            if sourceIsOn {
                muted.removeAll { $0 == source }
            } else if !muted.contains(source) {
                muted.append(source)
            }
        }
        return muted
    }

    /// Saves `patch` and shows the part of the answer `field` names; a failure is PREFS-04 (or
    /// the sign-in gate). Answers whether it was saved.
    @discardableResult private func save(_ patch: PreferencesPatch, _ field: SavedField) async -> Bool {
        do {
            merge(try await dependencies.api.updatePreferences(patch), field)
            return true
        } catch {
            saveFailed(error)
            return false
        }
    }

    /// `GET /v1/me/sources`, its failure kept as the answer.
    private func fetchSources() async -> Result<ReceivedSources, any Error> {
        do {
            return .success(try await dependencies.api.sources())
        } catch {
            return .failure(error)
        }
    }

    /// Takes a sources answer: a failure keeps a list already shown. Answers `false` when the
    /// session is gone.
    private func take(_ answer: Result<ReceivedSources, any Error>) -> Bool {
        switch answer {
        case .success(let sources):
            sourceList = .loaded(sources.items)
        case .failure(let error as HeraldAPIError) where error.kind == .unauthenticated:
            return false
        case .failure:
            if case .loaded = sourceList {} else { sourceList = .failed }
        }
        return true
    }

    /// Shows `saved` and follows its snooze.
    private func show(_ saved: Preferences) {
        phase = .loaded(saved)
        followSnooze(saved.snoozedUntil)
    }

    /// Shows a snooze ending at `end` while the clock has not passed it, and wakes when it does,
    /// so the row turns to Not snoozed without a reload.
    private func followSnooze(_ end: Date?) {
        let now = dependencies.clock.now()
        guard let end, end > now else {
            snoozeTimer?.cancel()
            snoozeTimer = nil
            if snoozeEnd != nil { snoozeEnd = nil }
            return
        }
        guard end != snoozeEnd else { return }
        snoozeEnd = end
        snoozeTimer?.cancel()
        snoozeTimer = dependencies.clock.scheduled(after: .seconds(end.timeIntervalSince(now))) { [weak self] in
            self?.snoozeRanOut(end)
        }
    }

    private func snoozeRanOut(_ end: Date) {
        guard snoozeEnd == end else { return }
        snoozeTimer = nil
        snoozeEnd = nil
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
        show(save.laid(over: shown))
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
