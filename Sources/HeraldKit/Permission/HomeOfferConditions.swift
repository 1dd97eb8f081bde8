/// What the Home offer (PERM-14, GATE-08) needs to know about the app shell, as the shell
/// reports it to ``PermissionOfferCoordinator/homeConditionsChanged(_:)``.
public struct HomeOfferConditions: Sendable, Equatable {
    /// Someone is signed in.
    public var isSignedIn: Bool
    /// The account stage is ready (not loading, not needing details).
    public var isAccountReady: Bool
    /// The Home tab is in front.
    public var isHomeFocused: Bool
    /// This device already has a push token registered for the signed-in user
    /// (``PushRegistrar/isTokenRegistered``).
    public var isPushTokenRegistered: Bool

    public init(isSignedIn: Bool, isAccountReady: Bool, isHomeFocused: Bool, isPushTokenRegistered: Bool) {
        self.isSignedIn = isSignedIn
        self.isAccountReady = isAccountReady
        self.isHomeFocused = isHomeFocused
        self.isPushTokenRegistered = isPushTokenRegistered
    }

    /// Whether the 1.5 s settle timer may run.
    var allowsHomeOffer: Bool { isSignedIn && isAccountReady && isHomeFocused && !isPushTokenRegistered }
}
