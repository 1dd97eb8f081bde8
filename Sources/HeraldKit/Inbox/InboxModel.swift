import HeraldModel
import Observation

/// The Notifications inbox (INBOX-01..15) with delete and undo (DEL-01..03).
///
/// A guest sees a sign-in message. A signed-in person sees 6 skeleton rows, then the newest
/// 20 notifications; 20 more load each time the end of the list is reached. The chips filter on
/// the client over pages of every type; a category with fewer than 10 matches pulls older pages
/// by itself until it has 10, 120 rows are loaded, or there are no more. While the screen is
/// visible the list follows the live stream; there is no pull to refresh.
///
/// Loading fails into "Couldn't load notifications" (with Try again) on any error but a lost
/// session, and when no answer comes within ``loadTimeout`` on the injected clock. A lost
/// session (`unauthenticated`) shows the sign-in message.
@MainActor @Observable public final class InboxModel {
    /// Notifications per page.
    public static let pageSize = 20
    /// Placeholder rows while the first page loads (INBOX-02).
    public static let skeletonRowCount = 6
    /// A category filter pulls older pages until it has this many matches (INBOX-13)...
    public static let minimumFilterMatches = 10
    /// ...or this many rows are loaded (INBOX-13).
    public static let filterAutoLoadRowLimit = 120
    /// A page that has not answered by then counts as failed (INBOX-03).
    public static let loadTimeout: Duration = .seconds(10)
    /// How long a deleted row can be brought back before the delete runs (DEL-01).
    public static let undoWindow: Duration = .seconds(4)

    /// The chip in force.
    public internal(set) var filter: InboxFilter = .all
    /// The toast over the screen: undo after a delete, or a delete failure.
    public var toast: Toast? { toastSlot.toast }
    /// The latest unread and unseen counts, from pages and the live stream.
    public internal(set) var counts: Counts?
    /// Whether someone is signed in; a guest sees the sign-in message (INBOX-01).
    public internal(set) var isSignedIn: Bool

    var feed = InboxFeed()
    var phase = LoadPhase.idle
    /// The row the undo toast brings back.
    var undoID: String?

    enum LoadPhase: Equatable {
        case idle, loadingFirstPage, loadingMore, failed
    }

    struct PendingDelete {
        let id: String
        let timer: Task<Void, Never>
    }

    let dependencies: HeraldDependencies
    let catalog: Catalog
    let allowedDeepLinkPrefixes: [String]

    @ObservationIgnored var isVisible = false
    @ObservationIgnored var hasMarkedSeenThisVisit = false
    @ObservationIgnored var loadTask: Task<Void, Never>?
    /// Bumped whenever a load starts or is abandoned; an answer for an older one is dropped.
    @ObservationIgnored var loadGeneration = 0
    /// Created and updated events that arrived while a page was loading, applied once it lands.
    @ObservationIgnored var heldEvents: [LiveEvent] = []
    @ObservationIgnored var liveTask: Task<Void, Never>?
    /// Deletes waiting out their undo window, oldest first.
    @ObservationIgnored var pendingDeletes: [PendingDelete] = []
    /// Bumped whenever the session ends; a delete answered for an earlier session changes
    /// nothing on screen.
    @ObservationIgnored var sessionGeneration = 0
    @ObservationIgnored let toastSlot: ToastSlot

    /// - Parameters:
    ///   - dependencies: the API, clock and navigator are used.
    ///   - isSignedIn: `false` for a guest.
    ///   - catalog: chips, filtering and tap routes; the app-config catalog.
    ///   - allowedDeepLinkPrefixes: the app-config deep-link allowlist; other deep links are ignored.
    public init(
        dependencies: HeraldDependencies, isSignedIn: Bool, catalog: Catalog = .standard,
        allowedDeepLinkPrefixes: [String] = []
    ) {
        self.dependencies = dependencies
        self.isSignedIn = isSignedIn
        self.catalog = catalog
        self.allowedDeepLinkPrefixes = allowedDeepLinkPrefixes
        self.toastSlot = ToastSlot(clock: dependencies.clock)
    }

    deinit {
        // A model dropped without `disappeared()` still closes its live stream, and runs its
        // pending deletes now, as leaving does (DEL-03): the person saw those rows go.
        liveTask?.cancel()
        for pending in pendingDeletes { pending.timer.cancel() }
        let api = dependencies.api
        for id in pendingDeletes.map(\.id) {
            Task { @MainActor in try? await api.delete(id) }
        }
    }

    /// The screen became visible: a new visit. Loads the first page, follows the live stream
    /// and marks everything seen once (INBOX-08).
    public func appeared() {
        guard !isVisible else { return }
        isVisible = true
        hasMarkedSeenThisVisit = false
        if isSignedIn { startVisit() }
    }

    /// The screen was left: the live subscription ends and pending deletes run now (DEL-03).
    public func disappeared() {
        guard isVisible else { return }
        isVisible = false
        liveTask?.cancel()
        liveTask = nil
        abandonLoad()
        flushPendingDeletes()
    }

    /// The session changed while the model lives, such as after signing in from the guest message.
    ///
    /// On sign-out the pending deletes run before the rows are dropped, so call this before
    /// the session token goes: once the API answers 401 those deletes fail quietly.
    public func sessionChanged(isSignedIn: Bool) {
        guard isSignedIn != self.isSignedIn else { return }
        if isSignedIn {
            self.isSignedIn = true
            if isVisible { startVisit() }
        } else {
            sessionEnded()
        }
    }

    /// Sign in on the guest message: presents the auth sheet (INBOX-01).
    public func signInTapped() {
        dependencies.navigator.presentSignIn()
    }

    /// Try again on the load error: retries what failed (INBOX-03).
    public func tryAgainTapped() {
        guard isSignedIn, phase == .failed else { return }
        if feed.hasLoaded, feed.nextCursor != nil { loadNextPage() } else { loadFirstPage() }
    }

    /// A chip was tapped: the list shows that category, pulling older pages when it has too
    /// few matches (INBOX-12, INBOX-13).
    public func chipTapped(_ filter: InboxFilter) {
        self.filter = filter
        if phase == .failed, feed.hasLoaded { phase = .idle }
        loadMoreIfFilterWantsIt()
    }

    /// The list was scrolled to its end: the next 20 load, under a footer spinner (INBOX-06, INBOX-07).
    public func endReached() {
        guard isSignedIn, feed.hasLoaded, feed.nextCursor != nil, phase == .idle || phase == .failed else { return }
        loadNextPage()
    }

    /// A row was tapped: its dot goes and its destination opens. A row without destination does
    /// nothing (INBOX-08, INBOX-09). The detail page marks its notification read itself, after
    /// it loaded the notification as unread, so it can show the New badge (DETAIL-05); every
    /// other destination is marked read from here.
    public func rowTapped(id: String) {
        guard let item = feed.visibleItem(id: id), let destination = destination(of: item) else { return }
        if item.readAt == nil {
            if case .detail = destination {
                feed.apply(NotificationChange(id: id, readAt: dependencies.clock.now()))
            } else {
                markRead(id: id)
            }
        }
        // A path the router cannot build leaves the person in the inbox, where they already are.
        try? dependencies.navigator.open(destination.path)
    }

    /// Where a tap on `item` leads; `nil` when that would be the inbox itself.
    func destination(of item: InboxNotification) -> NotificationDestination? {
        let destination = NotificationDestination.resolve(
            item, allowedPrefixes: allowedDeepLinkPrefixes, catalog: catalog)
        return destination == .inbox ? nil : destination
    }

    private func markRead(id: String) {
        feed.apply(NotificationChange(id: id, readAt: dependencies.clock.now()))
        let api = dependencies.api
        Task { [weak self] in
            // The dot is already gone; a failed call only means the server still counts it.
            guard let read = try? await api.markRead(id) else { return }
            self?.feed.apply(NotificationChange(id: read.id, readAt: read.readAt, seenAt: read.seenAt))
        }
    }

    private func startVisit() {
        subscribeToLiveEvents()
        loadFirstPage()
    }

    /// The session is gone: back to the guest message, with nothing loaded or pending. The
    /// pending deletes run first (DEL-03); their outcome no longer shows, and after a lost
    /// session (401) they fail quietly.
    func sessionEnded() {
        flushPendingDeletes()
        sessionGeneration += 1
        isSignedIn = false
        liveTask?.cancel()
        liveTask = nil
        abandonLoad()
        undoID = nil
        toastSlot.dismiss()
        feed = InboxFeed()
        phase = .idle
        counts = nil
        filter = .all
    }
}
