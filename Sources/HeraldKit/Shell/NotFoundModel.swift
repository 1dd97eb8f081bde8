import Observation

/// Oops!, the 404 fallback when no route matched, such as an in-app push to a bad path
/// (NOTFOUND-01). It has its own copy, not the shared empty state, and one link back to Home.
@MainActor @Observable public final class NotFoundModel {
    /// The path nobody could show.
    public let path: String
    public let title = NotFoundCopy.title
    public let message = NotFoundCopy.message
    public let goHomeLink = ButtonState(title: NotFoundCopy.goHomeLink)

    @ObservationIgnored private let navigator: Navigator

    public init(path: String, dependencies: HeraldDependencies) {
        self.path = path
        self.navigator = dependencies.navigator
    }

    /// Go to home screen!: opens the bare app path, which the router redirects to the Home tab
    /// (ROOT-01).
    public func goHomeTapped() {
        // The bare path always has a screen; a router that cannot build it has nothing better.
        try? navigator.open(AppRouteTable.homePath)
    }
}
