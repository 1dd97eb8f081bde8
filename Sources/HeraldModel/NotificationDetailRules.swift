#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The product rules of the detail page, written once: the app's detail screen (HeraldKit) lays
/// itself out by them and the console's preview shows what they decide.
package enum NotificationDetailRules {
    /// The CTA label when the notification has none (DETAIL-07).
    package static let defaultActionLabel = "View Details"
    /// The badge of a notification that was unread when opened (DETAIL-05).
    package static let newBadge = "New"

    /// The hero image: only an `https` URL with a host gets the hero layout (DETAIL-03); anything
    /// else gets the compact back-button row (DETAIL-04).
    package static func heroImageURL(_ detail: NotificationDetail?) -> URL? {
        httpsURL(detail?.heroImageURL)
    }

    /// An `https` URL with a host, or `nil`: what a hero image or a CTA URL must be to be used.
    package static func httpsURL(_ text: String?) -> URL? {
        guard let text, let url = URL(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// The rich HTML body, or `nil` when there is none and the page falls back to the push
    /// text (DETAIL-08).
    package static func html(_ detail: NotificationDetail?) -> String? {
        guard let html = detail?.html, !html.isEmpty else { return nil }
        return html
    }

    /// The CTA label, `View Details` without one (DETAIL-07); `nil` when the notification has
    /// no action path or URL, so there is no CTA.
    package static func actionLabel(_ detail: NotificationDetail?) -> String? {
        guard let detail, detail.actionPath != nil || detail.actionURL != nil else { return nil }
        let label = detail.actionLabel?.trimmingWhitespace() ?? ""
        return label.isEmpty ? defaultActionLabel : label
    }
}
