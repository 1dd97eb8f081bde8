/// Every word the Notification Preferences screen shows, in one place. Category toggle labels
/// are not here: they come from the catalog (`CatalogCategory.preferenceToggle`).
public enum PreferencesCopy {
    /// The screen's title.
    public static let title = "Notification Preferences"

    /// PREFS-08: under the centered spinner of the first load.
    public static let loading = "Loading your preferences"

    /// PREFS-01: the guest gate.
    public static let signInTitle = "Sign in to manage preferences"
    public static let signInMessage = "Sign in to choose which notifications you get."
    public static let signInButton = "Sign in"

    /// The first load failed.
    public static let loadFailedTitle = "Couldn't load your preferences"
    public static let loadFailedMessage = "Check your connection and try again."
    public static let tryAgainButton = "Try again"

    /// The master switch.
    public static let pushSwitch = "Push notifications"

    /// PREFS-09, SETTINGS-02: the banner above the master switch while the OS blocks notifications.
    public static let blockedTitle = "Notifications are blocked"
    public static let blockedMessage =
        "Permission is required to send you push notifications. Allow notifications for this app in Settings."
    public static let openSettingsButton = "Open Settings"

    /// PREFS-05: over the category rows while push is off.
    public static let enablePushFirst = "Turn on push notifications to choose which ones you get."

    /// PREFS-06, PREFS-07: under the category rows.
    public static let pushOnlyNote =
        "These settings change push notifications only: every notification still appears in your inbox, "
        + "and messages about your account are always sent."

    // The rows below were written for HeraldKit: the documents only name them as the roadmap's
    // "mute specific task integrations, set quiet hours, daily digest" (push document).

    /// The snooze row: its title, the status line and the three choices.
    public static let snoozeTitle = "Snooze"
    public static let notSnoozed = "Not snoozed"
    /// The status line while snoozed; `time` is `HH:mm`, with the day in front when the snooze
    /// ends more than a day from now (`Tue 19 Jan, 08:00`).
    public static func snoozedUntil(_ time: String) -> String { "Snoozed until \(time)" }
    public static let snoozeOneHour = "1 hour"
    public static let snoozeUntilTomorrowMorning = "Until tomorrow morning"
    public static let snoozeOff = "Off"
    /// Under the snooze choices: what a snooze holds back, and what it lets through.
    public static let snoozeNote =
        "Push notifications wait until the snooze ends. Messages about your account and urgent ones still come through."

    /// Quiet hours: the switch and, while it is on, the window's two times.
    public static let quietHoursSwitch = "Quiet hours"
    public static let quietHoursStart = "From"
    public static let quietHoursEnd = "To"
    public static let quietHoursNote = "Push notifications that arrive during quiet hours wait until they end."

    /// The daily digest: the switch and, while it is on, its time.
    public static let digestSwitch = "Daily digest"
    public static let digestTime = "Delivery time"
    public static let digestNote = "Some notifications wait and arrive together in one summary at this time."

    /// The sources section: one switch per source the person got notifications from.
    public static let sourcesTitle = "Sources"
    public static let sourcesLoading = "Loading your sources"
    public static let sourcesEmpty = "The services that send you notifications will show here."
    public static let sourcesLoadFailedTitle = "Couldn't load your sources"
    public static let sourcesLoadFailedMessage = "Check your connection and try again."

    /// PREFS-03: the master switch was saved on.
    public static let pushEnabledToast = Toast(kind: .success, title: "Push notifications enabled")
    /// PREFS-03: the master switch was saved off.
    public static let pushDisabledToast = Toast(kind: .success, title: "Push notifications disabled")
    /// PREFS-04: a save failed; the switch went back.
    public static let saveFailedToast = Toast(
        kind: .danger, title: "Could not save preferences", message: "Check your connection and try again.")
    /// PREFS-02: the OS dialog was refused and the OS may ask again later.
    public static let permissionDeniedToast = Toast(
        kind: .warning, title: "Notifications Disabled",
        message: "Allow notifications when asked to get push notifications.")
    /// The OS permission request threw.
    public static let permissionErrorToast = Toast(
        kind: .danger, title: "Error", message: "Couldn't ask for notification permission. Try again.")
}
