/// What the account gate shows in front of the app.
public enum AccountGateContent: Sendable, Equatable {
    /// Nothing: the app shows (for a guest, a ready account, or after Continue browsing).
    case app
    /// The blocking splash of a signed-in cold start while the account stage loads (GATE-02).
    case blockingSplash
    /// Can't load your account (GATE-03, GATE-04).
    case accountError(AccountErrorState)
}

/// The "Can't load your account" screen.
public struct AccountErrorState: Sendable, Equatable {
    public var title: String
    public var message: String
    /// Spins while the account is re-checked (GATE-04).
    public var tryAgainButton: ButtonState
    public var continueBrowsingButton: ButtonState

    /// The screen for `failure`; the servers-unreachable wording when they could not be reached.
    init(failure: AccountStageFailure, isRetrying: Bool) {
        title = AccountGateCopy.loadFailedTitle
        message =
            failure == .serversUnreachable
            ? AccountGateCopy.serversUnreachableMessage : AccountGateCopy.loadFailedMessage
        tryAgainButton = ButtonState(
            title: AccountGateCopy.tryAgainButton, isLoading: isRetrying, isDisabled: isRetrying)
        continueBrowsingButton = ButtonState(title: AccountGateCopy.continueBrowsingButton)
    }
}
