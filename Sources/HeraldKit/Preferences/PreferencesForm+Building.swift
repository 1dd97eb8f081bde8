import Foundation
import HeraldModel

extension PreferencesForm {
    /// The form for `saved` preferences, the OS `permission` and the saves under way; `sources`
    /// as loaded, `snoozeEnd` the end of the snooze in force, shown relative to `now` on the clock
    /// of `zone`.
    init(
        saved: Preferences, permission: NotificationPermissionState, pending: PendingPreferenceSaves,
        catalog: Catalog, blockedSwitchStyle: PreferencesModel.BlockedSwitchStyle,
        sources: PreferencesModel.SourceList, snoozeEnd: Date?, now: Date, zone: TimeZone
    ) {
        let isBlocked = permission.isBlockedBySystem
        let isPushOn = saved.isPushOn(with: permission)
        // PREFS-05: every row under the master switch is push-only, so it dims and takes no taps
        // while push is off.
        let opacity = isPushOn ? 1 : PreferenceSwitch.dimmedOpacity
        let pushSwitch = PreferenceSwitch(
            id: PreferenceSwitch.pushSwitchID, title: PreferencesCopy.pushSwitch,
            isOn: pending.push ?? isPushOn,
            isDisabled: pending.push != nil || (isBlocked && blockedSwitchStyle == .disabled),
            isLoading: pending.push != nil
        )
        let categories = catalog.categories.compactMap { category -> PreferenceSwitch? in
            guard category.canOptOut, let title = category.preferenceToggle else { return nil }
            let saving = pending.categories[category.id]
            return PreferenceSwitch(
                id: category.id, title: title, isOn: saving ?? saved.categories[category.id] ?? true,
                isDisabled: !isPushOn || saving != nil, isLoading: saving != nil, opacity: opacity
            )
        }
        self.init(
            blockedBanner: isBlocked
                ? PreferencesNotice(
                    title: PreferencesCopy.blockedTitle, message: PreferencesCopy.blockedMessage,
                    button: ButtonState(title: PreferencesCopy.openSettingsButton))
                : nil,
            pushSwitch: pushSwitch,
            snooze: SnoozeSection(
                end: pending.snooze ?? snoozeEnd, isSaving: pending.snooze != nil, isPushOn: isPushOn, now: now,
                zone: zone),
            categoriesHint: isPushOn ? nil : PreferencesCopy.enablePushFirst,
            categories: categories,
            sources: SourcesSection(sources, saved: saved, pending: pending.sources, isPushOn: isPushOn),
            quietHours: QuietHoursSection(
                window: pending.quietHours ?? saved.quietHours, isSaving: pending.quietHours != nil,
                isPushOn: isPushOn),
            digest: DigestSection(
                digest: pending.digest ?? saved.digest, isSaving: pending.digest != nil, isPushOn: isPushOn),
            footnote: PreferencesCopy.pushOnlyNote
        )
    }
}

extension SnoozeSection {
    /// The row for a snooze ending at `end` (`nil`: not snoozed).
    init(end: Date?, isSaving: Bool, isPushOn: Bool, now: Date, zone: TimeZone) {
        self.init(
            title: PreferencesCopy.snoozeTitle,
            status: end.map { PreferencesCopy.snoozedUntil(Self.text(of: $0, now: now, zone: zone)) }
                ?? PreferencesCopy.notSnoozed,
            isSnoozed: end != nil,
            choices: [
                SnoozeOption(choice: .oneHour, title: PreferencesCopy.snoozeOneHour),
                SnoozeOption(choice: .untilTomorrowMorning, title: PreferencesCopy.snoozeUntilTomorrowMorning),
                SnoozeOption(choice: .off, title: PreferencesCopy.snoozeOff),
            ],
            note: PreferencesCopy.snoozeNote, isDisabled: !isPushOn || isSaving, isLoading: isSaving,
            opacity: isPushOn ? 1 : PreferenceSwitch.dimmedOpacity)
    }

    /// `HH:mm` on the clock of `zone` when `end` is less than a day away, which can only mean
    /// the next time the clock shows it; further away, the day in front (`Tue 19 Jan, 08:00`).
    /// Either stays true as time passes, so the text needs no timer of its own.
    static func text(of end: Date, now: Date, zone: TimeZone) -> String {
        let time = TimeOfDay(end, in: zone).text
        guard end.timeIntervalSince(now) >= 24 * 60 * 60 else { return time }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE d MMM"
        return "\(formatter.string(from: end)), \(time)"
    }
}

extension SourcesSection {
    /// The section for the sources as loaded; a source's switch is on unless the saved
    /// preferences mute it, or as it is being saved.
    init(_ sources: PreferencesModel.SourceList, saved: Preferences, pending: [String: Bool], isPushOn: Bool) {
        let content: Content
        switch sources {
        case .loading:
            content = .loading(message: PreferencesCopy.sourcesLoading)
        case .failed:
            content = .loadFailed(
                PreferencesNotice(
                    title: PreferencesCopy.sourcesLoadFailedTitle, message: PreferencesCopy.sourcesLoadFailedMessage,
                    button: ButtonState(title: PreferencesCopy.tryAgainButton)))
        case .loaded(let items) where items.isEmpty:
            content = .empty(message: PreferencesCopy.sourcesEmpty)
        case .loaded(let items):
            content = .switches(
                items.map { source in
                    let saving = pending[source.id]
                    return PreferenceSwitch(
                        id: source.id, title: source.name, isOn: saving ?? !saved.mutedSources.contains(source.id),
                        isDisabled: !isPushOn || saving != nil, isLoading: saving != nil,
                        opacity: isPushOn ? 1 : PreferenceSwitch.dimmedOpacity)
                })
        }
        self.init(title: PreferencesCopy.sourcesTitle, content: content)
    }
}

extension QuietHoursSection {
    /// The switch for `window` (`nil`: off) and, while on, its two times.
    init(window: QuietHours?, isSaving: Bool, isPushOn: Bool) {
        let opacity = isPushOn ? 1 : PreferenceSwitch.dimmedOpacity
        let isDisabled = !isPushOn || isSaving
        func time(_ id: String, _ title: String, _ text: String?) -> PreferenceTime? {
            guard let time = text.flatMap(TimeOfDay.init) else { return nil }
            return PreferenceTime(
                id: id, title: title, time: time, isDisabled: isDisabled, isLoading: isSaving, opacity: opacity)
        }
        self.init(
            toggle: PreferenceSwitch(
                id: PreferenceSwitch.quietHoursSwitchID, title: PreferencesCopy.quietHoursSwitch, isOn: window != nil,
                isDisabled: isDisabled, isLoading: isSaving, opacity: opacity),
            start: time(PreferenceTime.quietHoursStartID, PreferencesCopy.quietHoursStart, window?.start),
            end: time(PreferenceTime.quietHoursEndID, PreferencesCopy.quietHoursEnd, window?.end),
            note: PreferencesCopy.quietHoursNote)
    }
}

extension DigestSection {
    /// The switch for `digest` (`nil`: never set, off) and, while on, its time.
    init(digest: DigestSettings?, isSaving: Bool, isPushOn: Bool) {
        let opacity = isPushOn ? 1 : PreferenceSwitch.dimmedOpacity
        let isDisabled = !isPushOn || isSaving
        let isOn = digest?.enabled == true
        self.init(
            toggle: PreferenceSwitch(
                id: PreferenceSwitch.digestSwitchID, title: PreferencesCopy.digestSwitch, isOn: isOn,
                isDisabled: isDisabled, isLoading: isSaving, opacity: opacity),
            time: isOn
                ? digest.flatMap { TimeOfDay($0.localTime) }.map {
                    PreferenceTime(
                        id: PreferenceTime.digestTimeID, title: PreferencesCopy.digestTime, time: $0,
                        isDisabled: isDisabled, isLoading: isSaving, opacity: opacity)
                } : nil,
            note: PreferencesCopy.digestNote)
    }
}

extension Preferences {
    /// Whether pushes reach this device: the master switch is saved on and the OS allows them.
    func isPushOn(with permission: NotificationPermissionState) -> Bool {
        globalEnabled && permission.isGranted
    }
}
