import HeraldKit
import Observation

/// The app's own services as the shell drives them: records every call, in order. A re-check
/// of the account (Try again) can be held until ``finishAccountReload()``, like an account
/// service that takes its time. Observable, so an end-to-end test can wait for a step.
@MainActor @Observable public final class RecordingAppShell {
    public enum Step: Equatable, Sendable {
        case reloadAccount
        case signOut
        case reloadApp
        case iconBadge(Int)
    }

    public private(set) var steps: [Step] = []
    /// When set, ``AppShellClient/reloadAccount`` waits for ``finishAccountReload()``.
    public var holdsAccountReloads = false
    @ObservationIgnored private var heldReloads: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// The numbers set on the app icon, in order.
    public var iconBadges: [Int] {
        steps.compactMap { if case .iconBadge(let count) = $0 { count } else { nil } }
    }

    /// How many account re-checks wait.
    public var heldAccountReloadCount: Int { heldReloads.count }

    /// Lets every held account re-check end.
    public func finishAccountReload() {
        let held = heldReloads
        heldReloads = []
        for reload in held { reload.resume() }
    }

    public var client: AppShellClient {
        AppShellClient(
            reloadAccount: { [self] in
                steps.append(.reloadAccount)
                if holdsAccountReloads { await withCheckedContinuation { heldReloads.append($0) } }
            },
            signOut: { [self] in steps.append(.signOut) },
            reloadApp: { [self] in steps.append(.reloadApp) },
            setIconBadge: { [self] count in steps.append(.iconBadge(count)) }
        )
    }
}
