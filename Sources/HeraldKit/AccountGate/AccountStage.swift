/// Where the signed-in person's account stands, as the app's account service reports it.
public enum AccountStage: Sendable, Equatable {
    /// The profile is loading (also while a token refreshes).
    case loading
    /// The profile could not be loaded; the account service may still be retrying.
    case unknown(AccountStageFailure)
    /// The account is usable.
    case ready
    /// Sign-up was not finished: the account details are missing.
    case needsDetails
    /// The account was deleted or suspended.
    case closed
}

/// Why the account stage is unknown.
public enum AccountStageFailure: Sendable, Equatable {
    /// The servers could not be reached (offline, no route) (GATE-04).
    case serversUnreachable
    /// Any other failure.
    case failed
}
