import Foundation
import HeraldModel
import Observation

/// The notification detail page, `/notifications/detail/{id}` (DETAIL-01..08).
///
/// It loads the notification, shows "Loading notification" meanwhile and "Unable to load
/// notification" when it cannot (the same for a bad id, another user's, a deleted or an admin
/// one). Once loaded, an unread notification is marked read, while its `New` badge stays for
/// this visit. The call to action opens an in-app path or an external `https` URL; an action
/// path that is not a safe in-app path is logged and ignored.
@MainActor @Observable public final class NotificationDetailModel {
    /// A load that has not answered by then counts as failed, with Try again.
    public static let loadTimeout: Duration = .seconds(10)

    /// The notification id from the route.
    public let id: String
    /// What the page shows.
    public private(set) var state = NotificationDetailState.loading(.loading)

    private let dependencies: HeraldDependencies
    private let log: @MainActor @Sendable (_ message: String) -> Void
    /// The rich content of the loaded notification, for the call to action.
    @ObservationIgnored private var detail: NotificationDetail?
    @ObservationIgnored private var hasAppeared = false

    /// - Parameters:
    ///   - id: the notification id from the route.
    ///   - dependencies: the API, clock and navigator are used.
    ///   - log: receives a line for what the page ignores (an invalid action path or URL, a
    ///     route that could not be opened), safe to log.
    public init(
        id: String, dependencies: HeraldDependencies, log: @escaping @MainActor @Sendable (_ message: String) -> Void
    ) {
        self.id = id
        self.dependencies = dependencies
        self.log = log
    }

    /// The page became visible: loads the notification the first time.
    public func appeared() {
        guard !hasAppeared else { return }
        hasAppeared = true
        load()
    }

    /// Try again after a failure that was not a 404.
    public func tryAgainTapped() {
        guard case .failed(let message) = state, message.button != nil else { return }
        load()
    }

    /// The call to action: opens the in-app path or the `https` URL. An invalid path (not
    /// starting with a single `/`, with a scheme, or with a `..` segment) is logged and ignored
    /// (DETAIL-06).
    public func ctaTapped() {
        guard case .loaded(let content) = state, content.action != nil, let detail else { return }
        if let path = detail.actionPath {
            guard InAppPath.isValid(path) else {
                log("Notification \(id): ignored the action path \"\(path)\", which is not an in-app path.")
                return
            }
            do {
                try dependencies.navigator.open(path)
            } catch {
                log("Notification \(id): could not open the action path \"\(path)\": \(error)")
            }
        } else if let link = detail.actionURL {
            guard let url = NotificationDetailRules.httpsURL(link) else {
                log("Notification \(id): ignored the action URL \"\(link)\", which is not an https URL.")
                return
            }
            dependencies.navigator.openURL(url)
        }
    }

    /// Back: to the inbox.
    public func backTapped() {
        try? dependencies.navigator.open(Catalog.inboxPath)
    }

    private func load() {
        state = .loading(.loading)
        let api = dependencies.api
        let id = id
        Task { [weak self, clock = dependencies.clock] in
            do {
                let notification = try await withLoadDeadline(Self.loadTimeout, clock: clock) {
                    try await api.notification(id)
                }
                self?.loaded(notification)
            } catch let error as HeraldAPIError where error.kind == .notFound {
                self?.state = .failed(.notFound)
            } catch {
                self?.state = .failed(.failed)
            }
        }
    }

    private func loaded(_ notification: InboxNotification) {
        detail = notification.detail
        state = .loaded(NotificationDetailContent(notification))
        guard notification.readAt == nil else { return }
        let api = dependencies.api
        let id = id
        // The badge keeps saying New for this visit; a failed mark-as-read is retried next visit.
        Task { _ = try? await api.markRead(id) }
    }
}
