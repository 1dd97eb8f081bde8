import Foundation
import HeraldModel

/// The update prompt as a person sees it. Never forced: it always has Later, and a swipe or a
/// tap on the backdrop does the same (UPDATE-04).
public struct UpdatePrompt: Sendable, Equatable {
    /// A version update (UPDATE-02) or the Play Store prompt for a sideloaded install (UPDATE-03).
    public enum Kind: Sendable, Equatable {
        case version, store
    }

    public var kind: Kind
    public var title: String
    public var message: String
    public var updateNowButton: ButtonState
    public var laterButton: ButtonState
    /// Where Update Now leads; `nil` when the policy names no store listing.
    public var storeURL: URL?
    /// Always `true`: there is no forced update and no maintenance mode (UPDATE-04).
    public var isDismissible: Bool { true }

    init(kind: Kind, decision: UpdateDecision, installedVersion: String) {
        self.kind = kind
        switch kind {
        case .version:
            title = UpdateCopy.versionTitle
            message = UpdateCopy.versionMessage(installed: installedVersion, minimum: decision.minimumVersion)
        case .store:
            title = UpdateCopy.storeTitle
            message = UpdateCopy.storeMessage
        }
        updateNowButton = ButtonState(title: UpdateCopy.updateNowButton)
        laterButton = ButtonState(title: UpdateCopy.laterButton)
        storeURL = decision.storeURL.flatMap(URL.init(string:))
    }
}
