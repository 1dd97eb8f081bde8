import Observation

/// The cold start (SPLASH-01..SPLASH-04): the native splash is held while the session is
/// pending, and the app proceeds as a guest after 10 s. Then a splash cover stays over the
/// first screen until Home reports content, or 12 s after it appeared. Links that arrived
/// before Home are replayed once Home is built, through ``links``.
///
/// The app calls ``launched(link:)`` first, ``sessionRestored(userID:)`` when the stored
/// session is known, ``homeBuilt()`` when Home exists and ``homeContentReady()`` when Home has
/// content to show.
@MainActor @Observable public final class LaunchCoordinator {
    /// How long the native splash waits for the session before the app goes on as a guest (SPLASH-02).
    public static let sessionWait: Duration = .seconds(10)
    /// The longest the splash cover stays over the first screen (SPLASH-03).
    public static let splashCoverBackstop: Duration = .seconds(12)

    /// What covers the app.
    public enum Splash: Sendable, Equatable {
        /// The native splash is held (SPLASH-01).
        case native
        /// The app's own cover over the first screen (SPLASH-03).
        case cover
        /// Nothing: the app shows.
        case none
    }

    /// The session as the cold start knows it.
    public enum Session: Sendable, Equatable {
        case pending
        case signedIn(userID: String)
        case guest
    }

    public private(set) var splash: Splash = .native
    public private(set) var session: Session = .pending
    /// The session did not answer within 10 s, so the app went on as a guest (SPLASH-02).
    public private(set) var proceededAsGuestAfterWait = false
    /// The first route, from ``DeepLinkScreener/coldStart(link:)``.
    public private(set) var firstRoute: String?
    /// The link screener; it replays a link that arrived before Home (SPLASH-04).
    public let links: DeepLinkScreener

    @ObservationIgnored private let clock: HeraldClock
    @ObservationIgnored private var sessionTimer: Task<Void, Never>?
    @ObservationIgnored private var coverTimer: Task<Void, Never>?
    @ObservationIgnored private var isHomeContentReady = false

    public init(dependencies: HeraldDependencies, links: DeepLinkScreener? = nil) {
        self.clock = dependencies.clock
        self.links = links ?? DeepLinkScreener(dependencies: dependencies)
    }

    /// The app launched cold, by `link` or by nothing: the native splash holds while the
    /// session is pending, for at most 10 s (SPLASH-01, SPLASH-02).
    public func launched(link: String? = nil) {
        guard sessionTimer == nil, session == .pending else { return }
        firstRoute = links.coldStart(link: link)
        sessionTimer = clock.scheduled(after: Self.sessionWait) { [weak self] in
            self?.sessionWaitPassed()
        }
    }

    /// The stored session is known (`nil`: a guest). The native splash gives way to the cover
    /// (SPLASH-03). A session restored after the app went on as a guest still applies, as a
    /// sign-in would.
    public func sessionRestored(userID: String?) {
        sessionTimer?.cancel()
        sessionTimer = nil
        session = userID.map { .signedIn(userID: $0) } ?? .guest
        showCover()
    }

    /// Home exists: a link that arrived before it opens now, or once app-config has loaded
    /// (SPLASH-04).
    public func homeBuilt() {
        links.homeBuilt()
    }

    /// Home reports content: the cover goes (SPLASH-03).
    public func homeContentReady() {
        isHomeContentReady = true
        hideCover()
    }

    private func sessionWaitPassed() {
        sessionTimer = nil
        guard session == .pending else { return }
        session = .guest
        proceededAsGuestAfterWait = true
        showCover()
    }

    private func showCover() {
        guard splash == .native else { return }
        guard !isHomeContentReady else {
            splash = .none
            return
        }
        splash = .cover
        coverTimer = clock.scheduled(after: Self.splashCoverBackstop) { [weak self] in
            self?.hideCover()
        }
    }

    private func hideCover() {
        coverTimer?.cancel()
        coverTimer = nil
        if splash == .cover { splash = .none }
    }
}
