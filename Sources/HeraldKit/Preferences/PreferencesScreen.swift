/// What the Notification Preferences screen shows, as a person would see it.
public enum PreferencesScreen: Sendable, Equatable {
    /// PREFS-08: a centered spinner (progressbar role) with this label, and no toggles,
    /// until the backend answers the first load.
    case loading(message: String)
    /// PREFS-01: a guest sees a sign-in gate; its button presents the auth sheet.
    case signInRequired(PreferencesNotice)
    /// The first load failed; the button tries again.
    case loadFailed(PreferencesNotice)
    /// The preferences the backend answered.
    case loaded(PreferencesForm)
}

/// A message with one button: a full-screen gate, or a banner inside the form.
public struct PreferencesNotice: Sendable, Equatable {
    /// The headline.
    public var title: String
    /// The line under it.
    public var message: String
    /// Its one action.
    public var button: ButtonState

    public init(title: String, message: String, button: ButtonState) {
        self.title = title
        self.message = message
        self.button = button
    }
}

/// The loaded screen, top to bottom.
///
/// Everything under the master switch changes push only, so while push is off (the switch, or
/// the OS) every one of those rows dims to ``PreferenceSwitch/dimmedOpacity`` and takes no taps
/// (PREFS-05's rule, applied to snooze, sources, quiet hours and the digest as to categories).
public struct PreferencesForm: Sendable, Equatable {
    /// PREFS-09, SETTINGS-02: shown above the master switch while the OS blocks notifications
    /// and will not ask again; its button opens the system settings (SETTINGS-03).
    public var blockedBanner: PreferencesNotice?
    /// The master switch (`id` ``PreferenceSwitch/pushSwitchID``).
    public var pushSwitch: PreferenceSwitch
    /// Pushes wait for an hour or until the morning.
    public var snooze: SnoozeSection
    /// PREFS-05: shown over the category rows while push is off.
    public var categoriesHint: String?
    /// One row per catalog category the user may opt out of, in catalog order; the account
    /// category has none (PREFS-06).
    public var categories: [PreferenceSwitch]
    /// One switch per source the user got notifications from.
    public var sources: SourcesSection
    /// A daily window in which pushes wait.
    public var quietHours: QuietHoursSection
    /// One summary push a day for the notifications marked for it.
    public var digest: DigestSection
    /// Below the rows: preferences change push only (PREFS-07) and account messages are always sent.
    public var footnote: String

    public init(
        blockedBanner: PreferencesNotice?, pushSwitch: PreferenceSwitch, snooze: SnoozeSection,
        categoriesHint: String?, categories: [PreferenceSwitch], sources: SourcesSection,
        quietHours: QuietHoursSection, digest: DigestSection, footnote: String
    ) {
        self.blockedBanner = blockedBanner
        self.pushSwitch = pushSwitch
        self.snooze = snooze
        self.categoriesHint = categoriesHint
        self.categories = categories
        self.sources = sources
        self.quietHours = quietHours
        self.digest = digest
        self.footnote = footnote
    }
}

/// The snooze row: its state and three choices.
public struct SnoozeSection: Sendable, Equatable {
    /// "Snooze".
    public var title: String
    /// "Snoozed until 09:41" while snoozed (the end being saved, while a choice saves), else
    /// "Not snoozed". It turns back to "Not snoozed" by itself when the snooze runs out.
    public var status: String
    public var isSnoozed: Bool
    /// 1 hour, Until tomorrow morning, Off (Off while not snoozed does nothing).
    public var choices: [SnoozeOption]
    /// What a snooze holds back, and what it lets through.
    public var note: String
    /// The choices take no taps: push is off, or a choice is saving.
    public var isDisabled: Bool
    /// A choice is saving.
    public var isLoading: Bool
    /// 1, or ``PreferenceSwitch/dimmedOpacity`` while push is off.
    public var opacity: Double

    public init(
        title: String, status: String, isSnoozed: Bool, choices: [SnoozeOption], note: String,
        isDisabled: Bool = false, isLoading: Bool = false, opacity: Double = 1
    ) {
        self.title = title
        self.status = status
        self.isSnoozed = isSnoozed
        self.choices = choices
        self.note = note
        self.isDisabled = isDisabled
        self.isLoading = isLoading
        self.opacity = opacity
    }
}

/// One snooze choice and its label.
public struct SnoozeOption: Sendable, Equatable, Identifiable {
    /// What a tap reports back, with ``PreferencesModel/snoozeChosen(_:)``.
    public var choice: SnoozeChoice
    public var title: String
    public var id: SnoozeChoice { choice }

    public init(choice: SnoozeChoice, title: String) {
        self.choice = choice
        self.title = title
    }
}

/// The quiet-hours switch and, while it is on, the window's start and end.
public struct QuietHoursSection: Sendable, Equatable {
    /// `id` ``PreferenceSwitch/quietHoursSwitchID``.
    public var toggle: PreferenceSwitch
    /// "From" (`id` ``PreferenceTime/quietHoursStartID``); `nil` while quiet hours are off.
    public var start: PreferenceTime?
    /// "To" (`id` ``PreferenceTime/quietHoursEndID``); `nil` while quiet hours are off.
    public var end: PreferenceTime?
    public var note: String

    public init(toggle: PreferenceSwitch, start: PreferenceTime?, end: PreferenceTime?, note: String) {
        self.toggle = toggle
        self.start = start
        self.end = end
        self.note = note
    }
}

/// The daily-digest switch and, while it is on, its time.
public struct DigestSection: Sendable, Equatable {
    /// `id` ``PreferenceSwitch/digestSwitchID``.
    public var toggle: PreferenceSwitch
    /// "Delivery time" (`id` ``PreferenceTime/digestTimeID``); `nil` while the digest is off.
    public var time: PreferenceTime?
    public var note: String

    public init(toggle: PreferenceSwitch, time: PreferenceTime?, note: String) {
        self.toggle = toggle
        self.time = time
        self.note = note
    }
}

/// The sources the user got notifications from, each with its switch (on: its pushes come).
public struct SourcesSection: Sendable, Equatable {
    /// What the section holds.
    public enum Content: Sendable, Equatable {
        /// Try again is loading them.
        case loading(message: String)
        /// They could not be loaded; the button tries again. The rest of the screen works.
        case loadFailed(PreferencesNotice)
        /// No source has sent the user anything yet.
        case empty(message: String)
        /// One switch per source, most recently heard from first; `id` is the source id.
        case switches([PreferenceSwitch])
    }

    /// "Sources".
    public var title: String
    public var content: Content

    public init(title: String, content: Content) {
        self.title = title
        self.content = content
    }
}

/// A labelled time picker.
public struct PreferenceTime: Sendable, Equatable, Identifiable {
    /// The start of quiet hours.
    public static let quietHoursStartID = "quietHoursStart"
    /// The end of quiet hours.
    public static let quietHoursEndID = "quietHoursEnd"
    /// The digest's time.
    public static let digestTimeID = "digestTime"

    public var id: String
    public var title: String
    /// The time shown, including one still being saved.
    public var time: TimeOfDay
    /// The picker takes no changes.
    public var isDisabled: Bool
    /// A save is under way.
    public var isLoading: Bool
    /// 1, or ``PreferenceSwitch/dimmedOpacity`` while push is off.
    public var opacity: Double

    public init(
        id: String, title: String, time: TimeOfDay, isDisabled: Bool = false, isLoading: Bool = false,
        opacity: Double = 1
    ) {
        self.id = id
        self.title = title
        self.time = time
        self.isDisabled = isDisabled
        self.isLoading = isLoading
        self.opacity = opacity
    }
}

/// One labelled switch.
public struct PreferenceSwitch: Sendable, Equatable, Identifiable {
    /// The id of the master switch; category rows use their catalog category id, source rows
    /// their source id.
    public static let pushSwitchID = "push"
    /// The id of the quiet-hours switch.
    public static let quietHoursSwitchID = "quietHours"
    /// The id of the digest switch.
    public static let digestSwitchID = "digest"
    /// The opacity of the rows under the master switch while push is off (PREFS-05).
    public static let dimmedOpacity = 0.6

    /// ``pushSwitchID``, ``quietHoursSwitchID``, ``digestSwitchID``, a catalog category id or a
    /// source id; the id a tap reports back.
    public var id: String
    /// The label: "Push notifications", "Quiet hours", "Daily digest", the catalog's preference
    /// toggle label or the source's name.
    public var title: String
    /// The value shown, including one still being saved.
    public var isOn: Bool
    /// The switch takes no taps.
    public var isDisabled: Bool
    /// A save or the OS permission dialog is under way.
    public var isLoading: Bool
    /// 1, or ``dimmedOpacity`` for a row under the master switch while push is off (PREFS-05).
    public var opacity: Double

    public init(
        id: String, title: String, isOn: Bool, isDisabled: Bool = false, isLoading: Bool = false,
        opacity: Double = 1
    ) {
        self.id = id
        self.title = title
        self.isOn = isOn
        self.isDisabled = isDisabled
        self.isLoading = isLoading
        self.opacity = opacity
    }
}
