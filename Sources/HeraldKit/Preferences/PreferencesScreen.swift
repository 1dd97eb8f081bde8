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
public struct PreferencesForm: Sendable, Equatable {
    /// PREFS-09, SETTINGS-02: shown above the master switch while the OS blocks notifications
    /// and will not ask again; its button opens the system settings (SETTINGS-03).
    public var blockedBanner: PreferencesNotice?
    /// The master switch (`id` ``PreferenceSwitch/pushSwitchID``).
    public var pushSwitch: PreferenceSwitch
    /// PREFS-05: shown over the category rows while push is off.
    public var categoriesHint: String?
    /// One row per catalog category the user may opt out of, in catalog order; the account
    /// category has none (PREFS-06).
    public var categories: [PreferenceSwitch]
    /// Below the rows: preferences change push only (PREFS-07) and account messages are always sent.
    public var footnote: String

    public init(
        blockedBanner: PreferencesNotice?, pushSwitch: PreferenceSwitch, categoriesHint: String?,
        categories: [PreferenceSwitch], footnote: String
    ) {
        self.blockedBanner = blockedBanner
        self.pushSwitch = pushSwitch
        self.categoriesHint = categoriesHint
        self.categories = categories
        self.footnote = footnote
    }
}

/// One labelled switch.
public struct PreferenceSwitch: Sendable, Equatable, Identifiable {
    /// The id of the master switch; category rows use their catalog category id.
    public static let pushSwitchID = "push"
    /// The opacity of category rows while push is off (PREFS-05).
    public static let dimmedOpacity = 0.6

    /// ``pushSwitchID`` or a catalog category id; the id a tap reports back.
    public var id: String
    /// The label: "Push notifications", or the catalog's preference toggle label.
    public var title: String
    /// The value shown, including one still being saved.
    public var isOn: Bool
    /// The switch takes no taps.
    public var isDisabled: Bool
    /// A save or the OS permission dialog is under way.
    public var isLoading: Bool
    /// 1, or ``dimmedOpacity`` for a category row while push is off (PREFS-05).
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
