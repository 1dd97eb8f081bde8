import HeraldModel

/// The words the notification detail page shows. Quoted from
/// `spec/notifications-screen-map.txt` unless marked as written for HeraldKit.
public enum NotificationDetailCopy {
    /// While the notification loads (DETAIL-01).
    public static let loadingTitle = "Loading notification"
    /// Bad id, another user's, deleted, admin, or any other failure (DETAIL-02).
    public static let unavailableTitle = "Unable to load notification"
    /// Written for HeraldKit: the retry button when the failure was not a 404 (timeout, offline).
    public static let tryAgainButton = "Try again"
    /// The CTA label when the notification has none (DETAIL-07).
    public static let defaultActionLabel = NotificationDetailRules.defaultActionLabel
    /// The badge of a notification that was unread when opened (DETAIL-05).
    public static let newBadge = NotificationDetailRules.newBadge
}
