import Foundation

/// What the notification detail page shows.
public enum NotificationDetailState: Sendable, Equatable {
    /// The notification is loading (DETAIL-01).
    case loading(NotificationDetailMessage)
    /// It could not be loaded (DETAIL-02).
    case failed(NotificationDetailMessage)
    /// It loaded.
    case loaded(NotificationDetailContent)
}

/// A full-screen message of the detail page.
public struct NotificationDetailMessage: Sendable, Equatable {
    public var title: String
    public var showsSpinner: Bool
    /// `Try again`, when trying again can help.
    public var button: ButtonState?

    public init(title: String, showsSpinner: Bool = false, button: ButtonState? = nil) {
        self.title = title
        self.showsSpinner = showsSpinner
        self.button = button
    }

    /// "Loading notification" with a spinner (DETAIL-01).
    public static let loading = NotificationDetailMessage(
        title: NotificationDetailCopy.loadingTitle, showsSpinner: true)
    /// "Unable to load notification": it does not exist for this person, whatever the reason
    /// (bad id, another user's, deleted, admin), so there is nothing to retry (DETAIL-02).
    public static let notFound = NotificationDetailMessage(title: NotificationDetailCopy.unavailableTitle)
    /// "Unable to load notification" after a timeout or another failure, with Try again.
    public static let failed = NotificationDetailMessage(
        title: NotificationDetailCopy.unavailableTitle,
        button: ButtonState(title: NotificationDetailCopy.tryAgainButton))
}

/// A loaded notification, as the page lays it out.
public struct NotificationDetailContent: Sendable, Equatable {
    public var layout: NotificationDetailLayout
    public var title: String
    public var body: NotificationDetailBody
    /// `New` when the notification was unread when opened; it stays after the automatic
    /// mark-as-read (DETAIL-05). `nil` otherwise.
    public var badge: String?
    /// The call to action; `nil` when the notification has no action path or URL (DETAIL-07).
    public var action: ButtonState?
    public var createdAt: Date

    public init(
        layout: NotificationDetailLayout, title: String, body: NotificationDetailBody, badge: String?,
        action: ButtonState?, createdAt: Date
    ) {
        self.layout = layout
        self.title = title
        self.body = body
        self.badge = badge
        self.action = action
        self.createdAt = createdAt
    }
}

/// The top of the page: a hero image, or a compact back row (DETAIL-03, DETAIL-04).
public struct NotificationDetailLayout: Sendable, Equatable {
    /// How the back button looks.
    public enum BackButton: Sendable, Equatable {
        /// A white chevron over the hero image.
        case whiteChevronOverImage
        /// A compact row with the back button above the title.
        case compactRow
    }

    /// The hero image; `nil` without one.
    public var heroImageURL: URL?
    /// A dark overlay over the hero image, so the white chevron reads.
    public var showsImageOverlay: Bool
    public var backButton: BackButton

    public init(heroImageURL: URL?, showsImageOverlay: Bool, backButton: BackButton) {
        self.heroImageURL = heroImageURL
        self.showsImageOverlay = showsImageOverlay
        self.backButton = backButton
    }

    /// Loaded with a hero image: image, overlay and white back chevron (DETAIL-03).
    public static func hero(_ url: URL) -> NotificationDetailLayout {
        NotificationDetailLayout(heroImageURL: url, showsImageOverlay: true, backButton: .whiteChevronOverImage)
    }

    /// Loaded without an image: a compact back button row (DETAIL-04).
    public static let compact = NotificationDetailLayout(
        heroImageURL: nil, showsImageOverlay: false, backButton: .compactRow)
}

/// The body of the page.
public enum NotificationDetailBody: Sendable, Equatable {
    /// Rich content: HTML the server already reduced to the safe subset, to render as given.
    case html(String)
    /// Plain text: the push text, when there is no rich HTML (DETAIL-08).
    case text(String)
}
