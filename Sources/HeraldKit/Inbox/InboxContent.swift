/// What fills the inbox screen below the chips.
public enum InboxContent: Sendable, Equatable {
    /// The first page is loading: this many placeholder rows (INBOX-02).
    case skeleton(rows: Int)
    /// The notifications that pass the filter, newest first (never empty).
    case list([InboxRow])
    /// A message instead of rows.
    case empty(InboxEmptyState)
}

/// A full-screen message of the inbox, with its optional button and spinner.
public struct InboxEmptyState: Sendable, Equatable {
    /// Which message it is, for artwork and analytics.
    public enum Kind: Sendable, Equatable {
        case signInRequired, loadFailed, allCaughtUp, lookingForMore, noneInCategory
    }

    public var kind: Kind
    public var title: String
    /// `Sign in` or `Try again`; `nil` when there is nothing to do.
    public var button: ButtonState?
    /// A spinner above the title.
    public var showsSpinner: Bool

    public init(kind: Kind, title: String, button: ButtonState? = nil, showsSpinner: Bool = false) {
        self.kind = kind
        self.title = title
        self.button = button
        self.showsSpinner = showsSpinner
    }

    /// A guest opened the inbox (INBOX-01).
    public static let signInRequired = InboxEmptyState(
        kind: .signInRequired, title: InboxCopy.signInTitle, button: ButtonState(title: InboxCopy.signInButton))
    /// Loading failed or timed out (INBOX-03).
    public static let loadFailed = InboxEmptyState(
        kind: .loadFailed, title: InboxCopy.loadFailedTitle, button: ButtonState(title: InboxCopy.tryAgainButton))
    /// No notifications at all (INBOX-04).
    public static let allCaughtUp = InboxEmptyState(kind: .allCaughtUp, title: InboxCopy.allCaughtUpTitle)
    /// A category filter is still pulling older pages (INBOX-12).
    public static let lookingForMore = InboxEmptyState(
        kind: .lookingForMore, title: InboxCopy.lookingForMoreTitle, showsSpinner: true)
    /// A category filter found nothing and the auto-load gave up (INBOX-05).
    public static let noneInCategory = InboxEmptyState(kind: .noneInCategory, title: InboxCopy.noneInCategoryTitle)
}
