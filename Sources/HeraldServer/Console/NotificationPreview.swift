import FoundationEssentials
import HeraldModel
import HeraldPush
import HeraldServerModel

/// What one draft notification looks like wherever a person meets it: the iOS lock-screen
/// banner and the Android notification (from the very payloads the push worker would send),
/// the inbox row and the detail page (from the rules the app lays itself out by), with the HTML
/// exactly as the sanitizer stores it. The console draws this; it decides nothing itself.
struct NotificationPreview: Encodable {
    /// A banner's text as the provider receives it.
    struct Banner: Encodable {
        var title: String
        var subtitle: String?
        var body: String
    }

    /// The 150-character push cut of title and body (PUSH-11).
    struct PushText: Encodable {
        var title: String
        var body: String
        var titleCut: Bool
        var bodyCut: Bool
        var limit: Int
    }

    /// Where a tap leads: `deepLink`, `detail`, `typed` (the catalog's route) or `inbox` (no
    /// destination: the row has no chevron).
    struct Destination: Encodable {
        var kind: String
        var path: String
    }

    struct InboxRow: Encodable {
        var title: String
        var body: String
        /// The category chip, `nil` for a type shown under All only.
        var chip: String?
        /// A new notification is unread (INBOX-08).
        var unreadDot: Bool
        /// Only when a tap leads somewhere (INBOX-09).
        var chevron: Bool
        var destination: Destination
    }

    struct Action: Encodable {
        var label: String
        var path: String?
        var url: String?
    }

    struct DetailPage: Encodable {
        /// `hero` (image, overlay, white back chevron; DETAIL-03) or `compact` (DETAIL-04).
        var layout: String
        var heroImageURL: String?
        var title: String
        /// The sanitized HTML body, or `nil` when the page shows `text`.
        var html: String?
        /// The push text, when there is no HTML (DETAIL-08).
        var text: String?
        /// `New`: the notification is unread when first opened (DETAIL-05).
        var badge: String?
        var action: Action?
        /// No rich content at all: title and text fall back to the push's (DETAIL-08).
        var plain: Bool
    }

    /// The deep link against the app-config allowlist.
    struct DeepLinkCheck: Encodable {
        var value: String
        var allowed: Bool
        var message: String
    }

    var type: String
    var category: String?
    var chip: String?
    /// An `admin.*` type: no app user ever sees it, so there is no row, page or push.
    var hidden: Bool
    /// Whether the publish asks to push (`push.send`).
    var pushes: Bool
    /// A background update (`push.contentAvailable`): the banners show what the inbox row will,
    /// but the device shows nothing.
    var background: Bool
    var push: PushText
    var ios: Banner
    var android: Banner
    var inboxRow: InboxRow?
    var detailPage: DetailPage?
    var deepLink: DeepLinkCheck?
    /// Every provider's body, as `GET /v1/notifications/{id}/push-preview` shows a sent one.
    var payloads: PushPreview

    /// The id a preview's notification has (it has none yet).
    static let draftID = "preview"

    init(_ draft: NotificationDraft, catalog: Catalog, allowedPrefixes: [String], now: Date) {
        var detail = draft.detail
        if let html = detail?.html { detail?.html = HTMLSanitizer.sanitize(html) }
        let hasDetail = detail.map { !$0.isEmpty } ?? false
        let notification = InboxNotification(
            id: Self.draftID, type: draft.type, category: catalog.category(forType: draft.type), title: draft.title,
            body: draft.body, data: draft.data ?? [:], deepLink: draft.deepLink, hasDetail: hasDetail, createdAt: now,
            detail: detail)
        let payload = PushPayload(notification: notification, options: draft.push)
        let payloads = payload.preview(now: now)

        type = draft.type
        category = notification.category
        chip = notification.category.flatMap { catalog.category(id: $0)?.chip }
        hidden = catalog.isHidden(type: draft.type)
        pushes = draft.push?.send == true && !hidden
        push = PushText(
            title: payload.title, body: payload.body, titleCut: payload.title != draft.title,
            bodyCut: payload.body != draft.body, limit: Limits.pushTextMaxLength)
        background = payload.isBackground
        let alert = payloads.apns.aps.alert
        ios = Banner(title: alert?.title ?? payload.title, subtitle: alert?.subtitle, body: alert?.body ?? payload.body)
        let banner = payloads.fcm.message.notification
        android = Banner(title: banner?.title ?? payload.title, body: banner?.body ?? payload.body)
        self.payloads = payloads

        let destination = NotificationDestination.resolve(
            notification, allowedPrefixes: allowedPrefixes, catalog: catalog)
        if hidden {
            inboxRow = nil
            detailPage = nil
        } else {
            inboxRow = InboxRow(
                title: notification.title, body: notification.body, chip: chip, unreadDot: true,
                chevron: destination != .inbox, destination: Self.describe(destination))
            detailPage = DetailPage(
                layout: NotificationDetailRules.heroImageURL(detail) == nil ? "compact" : "hero",
                heroImageURL: NotificationDetailRules.heroImageURL(detail)?.absoluteString,
                title: notification.title, html: NotificationDetailRules.html(detail),
                text: NotificationDetailRules.html(detail) == nil ? notification.body : nil,
                badge: NotificationDetailRules.newBadge,
                action: NotificationDetailRules.actionLabel(detail).map {
                    Action(label: $0, path: detail?.actionPath, url: detail?.actionURL)
                },
                plain: !hasDetail)
        }
        deepLink = draft.deepLink.map { Self.check(deepLink: $0, allowedPrefixes: allowedPrefixes) }
    }

    private static func describe(_ destination: NotificationDestination) -> Destination {
        let kind =
            switch destination {
            case .deepLink: "deepLink"
            case .detail: "detail"
            case .typed: "typed"
            case .inbox: "inbox"
            }
        return Destination(kind: kind, path: destination.path)
    }

    private static func check(deepLink: String, allowedPrefixes: [String]) -> DeepLinkCheck {
        let prefixes = allowedPrefixes.filter { !$0.isEmpty }
        if NotificationDestination.isAllowed(deepLink: deepLink, allowedPrefixes: prefixes) {
            let prefix = prefixes.filter { deepLink.hasPrefix($0) }.max { $0.count < $1.count } ?? ""
            return DeepLinkCheck(
                value: deepLink, allowed: true,
                message: "Allowed: it starts with \(prefix) from the app-config allowlist.")
        }
        let message =
            prefixes.isEmpty
            ? "The app-config deep-link allowlist is empty, so the app ignores every deep link."
            : "Not in the app-config deep-link allowlist (\(prefixes.joined(separator: ", "))): the app ignores it."
        return DeepLinkCheck(value: deepLink, allowed: false, message: message)
    }
}
