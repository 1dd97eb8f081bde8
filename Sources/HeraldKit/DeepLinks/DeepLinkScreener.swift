import Foundation
import HeraldModel
import Observation

/// Screens the links the OS hands the app, so rejected ones never open anything and valid ones
/// open their target once Home exists (SPLASH-04, LINK-01..LINK-03).
///
/// A link passes when it starts with a prefix of app-config's `deepLinks.allowedPrefixes` (the
/// same rule as notification deep links). Rejection is silent: a rejected cold-start link leaves
/// the app on Home, a rejected warm link leaves the person where they are. A link that arrives
/// before Home exists waits: the cold-start link on every platform, a warm link on Android
/// (where the OS can deliver one while the app is rebuilding); a waiting warm link older than
/// 60 s when Home is built is dropped. A link also waits for app-config, at most 60 s once Home
/// exists, so a slow app-config does not lose it. Only the newest waiting link is kept.
@MainActor @Observable public final class DeepLinkScreener {
    /// A warm link waiting for Home longer than this is dropped (LINK-02).
    public static let parkedLinkLifetime: Duration = .seconds(60)

    /// App-config's allowlist; `nil` until app-config has loaded, and links wait meanwhile.
    public private(set) var allowedPrefixes: [String]?
    /// Whether Home has been built since the last cold start.
    public private(set) var isHomeBuilt = false
    /// The link waiting for Home, if any.
    public var parkedLink: String? { parked?.link }

    private struct Parked {
        var link: String
        var arrivedAt: Date
        /// Warm links expire; the cold-start link does not.
        var expires: Bool
    }

    private var parked: Parked?
    @ObservationIgnored private let dependencies: HeraldDependencies

    public init(dependencies: HeraldDependencies, allowedPrefixes: [String]? = nil) {
        self.dependencies = dependencies
        self.allowedPrefixes = allowedPrefixes
    }

    /// App-config loaded: its allowlist screens links from now on, and a link that waited for
    /// it over Home opens when allowed (SPLASH-04).
    public func appConfigLoaded(_ config: AppConfigResponse) {
        allowedPrefixes = config.deepLinks.allowedPrefixes
        openParkedLink()
    }

    /// The app starts cold, launched by `link` or by nothing. Answers the first route: the
    /// route saved before a language reload, once (LINK-03), else Home. The link waits for
    /// Home and is screened then (SPLASH-04, LINK-01).
    public func coldStart(link: String?) -> String {
        isHomeBuilt = false
        parked = link.map { Parked(link: $0, arrivedAt: dependencies.clock.now(), expires: false) }
        let saved = dependencies.storage.string(StorageKey.languageReloadRoute)
        if saved != nil { dependencies.storage.setString(nil, StorageKey.languageReloadRoute) }
        if let saved, InAppPath.isValid(saved) { return saved }
        return AppRouteTable.homePath
    }

    /// The OS handed the running app a link. With Home built it opens when allowed and is
    /// ignored when not (LINK-01). Before Home, Android parks it until Home is built (LINK-02);
    /// iOS, which only hands a running scene its links, screens it at once. Before app-config
    /// it waits for the allowlist.
    public func linkOpened(_ link: String) {
        let waitsForHome = !isHomeBuilt && dependencies.platform.platform == .android
        if waitsForHome || allowedPrefixes == nil {
            parked = Parked(link: link, arrivedAt: dependencies.clock.now(), expires: true)
        } else {
            open(link)
        }
    }

    /// Home was built: the waiting link opens over it when allowed, unless it is a warm link
    /// older than 60 s (SPLASH-04, LINK-02). Without app-config yet, the cold-start link waits
    /// for it up to 60 s from now.
    public func homeBuilt() {
        guard !isHomeBuilt else { return }
        isHomeBuilt = true
        if allowedPrefixes == nil, parked?.expires == false {
            parked?.arrivedAt = dependencies.clock.now()
            parked?.expires = true
        }
        openParkedLink()
    }

    /// The language is about to change, which reloads the app: `route` is reopened at the next
    /// cold start (LINK-03).
    public func languageReloadRequested(currentRoute route: String) {
        dependencies.storage.setString(route, StorageKey.languageReloadRoute)
    }

    /// Opens the waiting link once Home is built and app-config has loaded, unless it expired.
    private func openParkedLink() {
        guard isHomeBuilt, allowedPrefixes != nil, let parked else { return }
        self.parked = nil
        let age = dependencies.clock.now().timeIntervalSince(parked.arrivedAt)
        if parked.expires, age > Self.seconds(Self.parkedLinkLifetime) { return }
        open(parked.link)
    }

    /// Opens `link` when the allowlist passes it; a rejected link does nothing and says nothing.
    private func open(_ link: String) {
        guard let allowedPrefixes, NotificationDestination.isAllowed(deepLink: link, allowedPrefixes: allowedPrefixes)
        else { return }
        // A link the router cannot build leaves the person where they are.
        try? dependencies.navigator.open(link)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
