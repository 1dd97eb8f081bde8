import HeraldModel
import Observation

/// Routes tapped pushes (TAP-01..04, PUSH-08..10) and answers how a foreground push shows
/// (PUSH-07). One handler for every provider and source (PUSH-12).
///
/// The app forwards each tap from its notification-response callback with
/// ``notificationTapped(_:)``, whether the app was running or in the background (a callback
/// off the main actor reads the payload with ``PushTap/init(payload:)`` first and hands the
/// `Sendable` tap over), and calls ``authHydrated()`` once the session is known. Taps that
/// arrive before that wait in ``queuedTaps``; the cold-launch tap is read once, then, and a
/// tap already handled on an earlier launch is not replayed (PUSH-10). A tapped action button
/// (the response's `actionIdentifier`) routes by the ``PushAction`` of that identifier: its own
/// path, the push's destination, or nowhere; an identifier without one routes as a tap on the
/// push, and a dismissal opens nothing.
///
/// Every routed tap, on the push or on one of its buttons (one that stays put included), is
/// reported to the server as an open (`POST /v1/me/notifications/{id}/opened`), once per
/// routing, whichever way the tap came: app running, backgrounded, or the cold launch once auth
/// is hydrated. A dismissal, a tap a launch replays no more and the second tap of one
/// notification in the queue are no opens. The report is fire and forget: navigation never
/// waits for it, and a failed one (offline, the session gone) is not retried, because the
/// server keeps the first open only and the funnel can live without a lost one.
@MainActor @Observable public final class PushRouter {
    /// The catalog that builds typed routes (app-config's).
    public var catalog: Catalog
    /// App-config's `deepLinks.allowedPrefixes`; update it when app-config loads.
    public var allowedDeepLinkPrefixes: [String]
    /// The action buttons of the app's notification categories, by identifier.
    public var actions: [PushAction]
    /// Whether auth hydration finished, so taps route at once.
    public private(set) var isReady = false
    /// Taps that arrived before ``authHydrated()``, oldest first.
    public private(set) var queuedTaps: [PushTap] = []

    @ObservationIgnored private var isHydrating = false
    @ObservationIgnored private let api: HeraldAPI
    @ObservationIgnored private let navigator: Navigator
    @ObservationIgnored private let storage: KeyValueStore
    @ObservationIgnored private let lastNotificationResponse: @MainActor @Sendable () async -> PushTap?

    /// - Parameters:
    ///   - dependencies: the navigator opens routes; storage remembers the last handled tap; the
    ///     API records each open.
    ///   - lastNotificationResponse: the tap that launched the app, if any (Expo's
    ///     `getLastNotificationResponseAsync`, read with ``PushTap/init(payload:)``). It may
    ///     answer a tap an earlier launch already handled; that one is skipped.
    ///   - actions: what each action button does, by identifier.
    public init(
        dependencies: HeraldDependencies, catalog: Catalog, allowedDeepLinkPrefixes: [String],
        actions: [PushAction] = [],
        lastNotificationResponse: @escaping @MainActor @Sendable () async -> PushTap?
    ) {
        self.api = dependencies.api
        self.navigator = dependencies.navigator
        self.storage = dependencies.storage
        self.catalog = catalog
        self.allowedDeepLinkPrefixes = allowedDeepLinkPrefixes
        self.actions = actions
        self.lastNotificationResponse = lastNotificationResponse
    }

    /// A push arrived while the app is in the foreground (`willPresent`): it still shows a
    /// banner and plays its sound (PUSH-07), stays in the list and updates the badge.
    /// Nonisolated, so the delegate callback answers without hopping to the main actor.
    nonisolated public func foregroundPushArrived() -> PushPresentationOptions {
        [.banner, .list, .sound, .badge]
    }

    /// The person tapped a push (`didReceive`), the app running or in the background
    /// (PUSH-08, PUSH-09), or one of its action buttons (`actionIdentifier`, the response's).
    /// Answers `false` when the payload is not a Herald push.
    @discardableResult public func notificationTapped(_ payload: [AnyHashable: Any], actionIdentifier: String? = nil)
        -> Bool
    {
        guard let tap = PushTap(payload: payload, actionIdentifier: actionIdentifier) else { return false }
        notificationTapped(tap)
        return true
    }

    /// The person tapped a push already read as a ``PushTap``.
    public func notificationTapped(_ tap: PushTap) {
        if isReady {
            route(tap)
        } else {
            queuedTaps.append(tap)
        }
    }

    /// Auth hydration finished (PUSH-10): reads the cold-launch tap once, then routes it and
    /// every queued tap, each notification once. Later calls do nothing.
    public func authHydrated() async {
        guard !isReady, !isHydrating else { return }
        isHydrating = true
        let launchTap = await lastNotificationResponse()
        isHydrating = false
        isReady = true
        var taps = queuedTaps
        queuedTaps = []
        if let launchTap, launchTap.notificationId != storage.string(StorageKey.handledPushNotificationId) {
            taps.insert(launchTap, at: 0)
        }
        var routed: Set<String> = []
        for tap in taps where routed.insert(tap.notificationId).inserted {
            route(tap)
        }
    }

    /// Opens the tap's route, then reports the open unless the push was only swiped away (or
    /// the tap names no notification). The notification id is stored first, so a later launch
    /// never replays it.
    private func route(_ tap: PushTap) {
        storage.setString(tap.notificationId, StorageKey.handledPushNotificationId)
        navigate(for: tap)
        if tap.actionIdentifier != PushAction.dismissIdentifier, !tap.notificationId.isEmpty {
            reportOpen(tap.notificationId)
        }
    }

    /// Opens where the tap leads; any navigation error lands in the inbox (TAP-03).
    private func navigate(for tap: PushTap) {
        let path: String
        switch actionRoute(tap) {
        case .stay: return
        case .path(let actionPath): path = actionPath
        case .notification:
            path = NotificationDestination(tap: tap, catalog: catalog, allowedPrefixes: allowedDeepLinkPrefixes).path
        }
        do {
            try navigator.open(path)
        } catch {
            try? navigator.open(Catalog.inboxPath)
        }
    }

    /// Tells the server the notification was opened from its push, without waiting for it.
    private func reportOpen(_ id: String) {
        let api = api
        Task { _ = try? await api.markOpened(id) }
    }

    /// Where the tap's action button leads: none tapped, or one without a ``PushAction``, is a
    /// tap on the push; a dismissal stays.
    private func actionRoute(_ tap: PushTap) -> PushAction.Route {
        guard let identifier = tap.actionIdentifier else { return .notification }
        if identifier == PushAction.dismissIdentifier { return .stay }
        return actions.first { $0.identifier == identifier }?.route(tap) ?? .notification
    }
}
