import Foundation
import HeraldModel
import Observation

/// The update prompt over any screen (UPDATE-01..UPDATE-04).
///
/// The server decides with the shared rule (`AppConfigDocument.decision`, real semantic-version
/// ordering) from the platform, installed version and install source that
/// `HeraldAPI.live(_:platform:)` sends; the app hands the answer to ``appConfigLoaded(_:)``.
/// Nothing shows before app-config loads (offline or loading), without installer info, without
/// a policy for the platform, or when up to date. Each kind can be dismissed for 7 days.
@MainActor @Observable public final class UpdateGateModel {
    /// How long Later (or a swipe) hides a kind of prompt (UPDATE-04).
    public static let dismissalPeriod: Duration = .seconds(7 * 24 * 60 * 60)

    /// The prompt while it shows.
    public private(set) var prompt: UpdatePrompt?

    @ObservationIgnored private var decision: UpdateDecision?
    @ObservationIgnored private let dependencies: HeraldDependencies

    public init(dependencies: HeraldDependencies) {
        self.dependencies = dependencies
    }

    /// App-config loaded: its update decision shows, unless dismissed within 7 days.
    public func appConfigLoaded(_ config: AppConfigResponse) {
        decision = config.update
        evaluate()
    }

    /// The app came to the front: a dismissal that ran out shows the prompt again.
    public func appBecameActive() {
        evaluate()
    }

    /// Update Now: opens the store listing; the prompt closes without a dismissal, so it comes
    /// back while the app is still out of date.
    public func updateNowTapped() {
        guard let prompt else { return }
        self.prompt = nil
        if let url = prompt.storeURL { dependencies.navigator.openURL(url) }
    }

    /// Later, a swipe or a tap on the backdrop: this kind hides for 7 days (UPDATE-04).
    public func laterTapped() {
        guard let prompt else { return }
        self.prompt = nil
        dependencies.storage.setString(
            String(dependencies.clock.now().timeIntervalSince1970), Self.dismissalKey(prompt.kind))
    }

    private func evaluate() {
        guard let decision, let kind = Self.kind(of: decision), !isDismissed(kind) else {
            prompt = nil
            return
        }
        prompt = UpdatePrompt(kind: kind, decision: decision, installedVersion: dependencies.platform.appVersion)
    }

    private func isDismissed(_ kind: UpdatePrompt.Kind) -> Bool {
        guard let stamp = dependencies.storage.string(Self.dismissalKey(kind)).flatMap(TimeInterval.init) else {
            return false
        }
        let (seconds, _) = Self.dismissalPeriod.components
        return dependencies.clock.now().timeIntervalSince1970 - stamp < TimeInterval(seconds)
    }

    private static func kind(of decision: UpdateDecision) -> UpdatePrompt.Kind? {
        switch decision.kind {
        case .none: nil
        case .version: .version
        case .store: .store
        }
    }

    private static func dismissalKey(_ kind: UpdatePrompt.Kind) -> String {
        switch kind {
        case .version: StorageKey.versionUpdateDismissedAt
        case .store: StorageKey.storeUpdateDismissedAt
        }
    }
}
