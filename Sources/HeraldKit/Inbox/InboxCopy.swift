/// The words the inbox shows. Quoted from `spec/notifications-screen-map.txt` unless marked
/// as written for HeraldKit.
public enum InboxCopy {
    /// Guest empty state (INBOX-01).
    public static let signInTitle = "Sign in to view notifications"
    /// Guest empty state button (INBOX-01; "Sign in → auth sheet").
    public static let signInButton = "Sign in"
    /// Load error (INBOX-03).
    public static let loadFailedTitle = "Couldn't load notifications"
    /// Load error button (INBOX-03; "Try again redrives session").
    public static let tryAgainButton = "Try again"
    /// No notifications at all (INBOX-04).
    public static let allCaughtUpTitle = "All caught up"
    /// A category filter with no matches after the auto-load gave up (INBOX-05).
    public static let noneInCategoryTitle = "No notifications in this category"
    /// A category filter still pulling older pages (INBOX-12).
    public static let lookingForMoreTitle = "Looking for more in this category"
    /// The chip of every notification (INBOX-06).
    public static let allChip = "All"
    /// Undo toast title (DEL-01).
    public static let deletedToastTitle = "Notification deleted"
    /// Undo toast line (DEL-01).
    public static let deletedToastMessage = "tap to undo"
    /// Delete failure toast (DEL-02).
    public static let deleteFailedToastTitle = "Could not delete notification"
    /// The row's custom accessibility action, matching the swipe (INBOX-14).
    public static let deleteAction = "Delete"
    /// Written for HeraldKit: first word of an unread row's accessibility label.
    public static let unreadAccessibilityPrefix = "Unread"
}
