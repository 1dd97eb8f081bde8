import Foundation
import HeraldKit

/// The app's router: records every navigation. A path in ``failingPaths`` throws, like a
/// router that cannot build the screen.
@MainActor public final class RecordingNavigator {
    public enum Step: Equatable, Sendable {
        case open(String)
        case openURL(URL)
        case signIn
    }

    public private(set) var steps: [Step] = []
    /// Paths whose navigation throws.
    public var failingPaths: Set<String> = []

    public init() {}

    /// The in-app paths opened, in order.
    public var openedPaths: [String] {
        steps.compactMap { if case .open(let path) = $0 { path } else { nil } }
    }

    public struct NavigationFailed: Error, Equatable {
        public let path: String
    }

    public var navigator: Navigator {
        Navigator(
            open: { [self] path in
                if failingPaths.contains(path) { throw NavigationFailed(path: path) }
                steps.append(.open(path))
            },
            openURL: { [self] url in steps.append(.openURL(url)) },
            presentSignIn: { [self] in steps.append(.signIn) }
        )
    }
}
